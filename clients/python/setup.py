"""Builds the ``larder`` executable into the package: ``pip install
./clients/python`` runs ``swift build -c release --product larder`` in the
repository this directory belongs to and installs the result as
``larder/bin/larder``, where :func:`larder.find_binary` looks for it.

``$LARDER_PACKAGE_BINARY`` names an already built executable to package
instead of building one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]


class BuildWithBinary(build_py):
    """``build_py``, then the release ``larder`` copied into ``larder/bin``."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "larder" / "bin" / "larder"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(self._binary(), target)
        target.chmod(0o755)

    def _binary(self) -> Path:
        given = os.environ.get("LARDER_PACKAGE_BINARY")
        if given:
            return Path(given)
        if not (REPOSITORY / "Package.swift").is_file():
            raise SystemExit(f"cannot build larder: no Package.swift in {REPOSITORY} (install from a checkout "
                             "of the repository, or set LARDER_PACKAGE_BINARY to a built larder)")
        command = ["swift", "build", "-c", "release", "--product", "larder"]
        print("building larder:", " ".join(command), "in", REPOSITORY, flush=True)
        subprocess.run(command, cwd=REPOSITORY, check=True)
        bin_path = subprocess.run([*command[:4], "--show-bin-path"], cwd=REPOSITORY, check=True,
                                  capture_output=True, text=True).stdout.strip()
        return Path(bin_path) / "larder"


class BinaryDistribution(Distribution):
    """The wheel holds an executable, so it is tied to this platform."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildWithBinary}, distclass=BinaryDistribution)
