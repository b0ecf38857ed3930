"""Puts the ``larder`` executable into the package, as ``larder/bin/larder``,
where :func:`larder.find_binary` looks for it.

``$LARDER_PACKAGE_BINARY`` names the executable to package: the
self-contained one ``.ci/dist`` builds (``pip wheel ./clients/python`` with
it set makes a wheel any Linux with a recent enough glibc can install).
Without it, installing from a checkout of the repository builds that
executable from source, with ``.ci/dist --binary``: it needs a Swift 6
toolchain and Debian's ``libsqlite3-dev``, ``libssl-dev``, ``libpq-dev`` and
``pkg-config``, names whichever is missing, and prints SwiftPM's progress.

The wheel is tagged ``py3-none-manylinux_2_NN_ARCH``: no Python ABI (the
package is pure Python beside the executable), the glibc the executable
needs (read from its ELF version needs, as ``objdump -T`` shows them) and
its machine. An executable that needs any other shared library, the Swift
runtime's or SQLite's say, is refused: it would not run where the wheel says
it does.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, NamedTuple

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]

# The libraries glibc itself is made of, and the unwinder every glibc
# system has (glibc loads it to cancel a thread; the manylinux policies allow
# it): all the executable may load.
GLIBC_LIBRARIES = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libutil.so.1",
                   "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "libgcc_s.so.1"}
MACHINES = {62: "x86_64", 183: "aarch64"}


class ELFNeeds(NamedTuple):
    machine: str
    libraries: list[str]
    glibc: tuple[int, int]
    runpath: list[str]


def elf_needs(path: Path) -> ELFNeeds:
    """The machine, shared libraries (DT_NEEDED), newest glibc symbol
    version (GLIBC_2.N, from the version needs section) and run paths of a
    64-bit little-endian ELF executable."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise SystemExit(f"{path} is not a 64-bit little-endian ELF executable")
    machine = MACHINES.get(struct.unpack_from("<H", data, 0x12)[0])
    if machine is None:
        raise SystemExit(f"{path} is for a machine no wheel is made for here (x86_64 and aarch64 are)")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]

    def string(table: int, offset: int) -> str:
        start = sections[table][4] + offset
        return data[start:data.index(b"\0", start)].decode()

    libraries: list[str] = []
    runpath: list[str] = []
    versions: list[str] = []
    for _, kind, _, _, offset, size, link, info, _, _ in sections:
        if kind == 6:  # SHT_DYNAMIC: (tag, value) pairs
            for at in range(offset, offset + size, 16):
                tag, value = struct.unpack_from("<qQ", data, at)
                if tag == 1:  # DT_NEEDED
                    libraries.append(string(link, value))
                elif tag in (15, 29):  # DT_RPATH, DT_RUNPATH
                    runpath += string(link, value).split(":")
        elif kind == 0x6FFFFFFE:  # SHT_GNU_verneed: info entries, each with its aux list
            at = offset
            for _ in range(info):
                _, count, _, aux, following = struct.unpack_from("<HHIII", data, at)
                vernaux = at + aux
                for _ in range(count):
                    _, _, _, name, after = struct.unpack_from("<IHHII", data, vernaux)
                    versions.append(string(link, name))
                    vernaux += after
                at += following
    glibc = max((tuple(int(n) for n in v[len("GLIBC_"):].split(".")[:2]) for v in versions
                 if v.startswith("GLIBC_2.")), default=(2, 17))
    return ELFNeeds(machine, libraries, (glibc[0], glibc[1]), runpath)


def platform_tag(path: Path) -> str:
    """``manylinux_2_NN_ARCH`` for a self-contained executable; SystemExit,
    saying what it needs, for one that is not."""
    needs = elf_needs(path)
    others = [lib for lib in needs.libraries if lib not in GLIBC_LIBRARIES]
    runpath = [p for p in needs.runpath if p not in ("$ORIGIN", "")]  # SwiftPM's own: the executable's directory
    if others or runpath:
        raise SystemExit(
            f"{path} is not self-contained: it needs {', '.join(others) or 'no other library'}"
            f"{' and looks in ' + ':'.join(runpath) if runpath else ''}, so it would not run where "
            "the wheel says it does. Build the self-contained one with `bash .ci/dist` (at the repository's "
            "root) and set LARDER_PACKAGE_BINARY to it")
    return f"manylinux_{needs.glibc[0]}_{needs.glibc[1]}_{needs.machine}"


def progress() -> IO[str]:
    """Where a build from source shows its progress: the terminal when there
    is one, since pip keeps its build's own output until the build fails
    (or for -v); else standard error."""
    try:
        return open("/dev/tty", "w")
    except OSError:
        return sys.stderr


class BuildWithBinary(build_py):
    """``build_py``, then the executable copied into ``larder/bin``."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "larder" / "bin" / "larder"
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="larder-build-") as scratch:
            binary = self._binary(Path(scratch))
            setattr(self.distribution, "larder_platform", platform_tag(binary))
            shutil.copy2(binary, target)
        target.chmod(0o755)

    def _binary(self, scratch: Path) -> Path:
        given = os.environ.get("LARDER_PACKAGE_BINARY")
        if given:
            if not Path(given).is_file():
                raise SystemExit(f"LARDER_PACKAGE_BINARY names {given}, which is not a file")
            return Path(given)
        if not (REPOSITORY / "Package.swift").is_file():
            raise SystemExit(f"cannot build larder: no Package.swift in {REPOSITORY} (install from a checkout "
                             "of the repository, or set LARDER_PACKAGE_BINARY to a larder built by .ci/dist)")
        out = progress()
        print("building larder from source with .ci/dist --binary (a release build: minutes; "
              "SwiftPM's progress follows)", file=out, flush=True)
        try:
            subprocess.run(["bash", str(REPOSITORY / ".ci" / "dist"), "--binary", "--out", str(scratch)],
                           cwd=REPOSITORY, check=True, stdout=out, stderr=out)
        except subprocess.CalledProcessError as e:
            raise SystemExit(f"building larder failed (exit {e.returncode}); what .ci/dist printed says why") from None
        finally:
            if out is not sys.stderr:
                out.close()
        built = sorted(p for p in scratch.glob("larder-*") if not p.name.endswith(".sha256"))
        if len(built) != 1:
            raise SystemExit(f".ci/dist left {[p.name for p in built]} in {scratch}, not one executable")
        return built[0]


class BinaryDistribution(Distribution):
    """Holds an executable, so it is installed as platform-specific (the
    wheel's root is platlib, not purelib)."""

    def has_ext_modules(self) -> bool:
        return True


def platform_wheel() -> type:
    """``bdist_wheel`` tagged for any Python 3 on the executable's platform
    (imported here: setuptools has it from 70.1, the wheel package before)."""
    try:
        from setuptools.command.bdist_wheel import bdist_wheel
    except ImportError:
        from wheel.bdist_wheel import bdist_wheel  # type: ignore[no-redef]

    class PlatformWheel(bdist_wheel):  # type: ignore[misc, valid-type]
        def get_tag(self) -> tuple[str, str, str]:
            platform = getattr(self.distribution, "larder_platform", None)
            if platform is None:
                raise SystemExit("the larder executable was not packaged, so the wheel has no platform")
            return "py3", "none", platform

    return PlatformWheel


if __name__ == "__main__":  # as setuptools runs it; tests import the functions above
    setup(cmdclass={"build_py": BuildWithBinary, "bdist_wheel": platform_wheel()}, distclass=BinaryDistribution)
