"""The wheel and what setup.py checks before making one: the platform tag
read from the executable, a larder that is not self-contained refused, and a
build from source with no toolchain naming what is missing."""

from __future__ import annotations

import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import REPO, missing

DIST = REPO / ".build" / "dist"


def load_setup():
    spec = importlib.util.spec_from_file_location("larder_setup", REPO / "clients" / "python" / "setup.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dist_file(pattern: str) -> Path:
    found = [p for p in DIST.glob(pattern) if not p.name.endswith(".sha256")]
    if len(found) != 1:
        missing(f"no {pattern} in {DIST}: run `bash .ci/dist`")
    return found[0]


def newest_glibc_by_objdump(path: Path) -> int:
    if shutil.which("objdump") is None:
        missing("objdump (binutils) is not installed")
    symbols = subprocess.run(["objdump", "-T", str(path)], check=True, capture_output=True, text=True).stdout
    return max(int(n) for n in re.findall(r"GLIBC_2\.(\d+)", symbols))


def test_the_platform_tag_names_the_glibc_objdump_finds_and_the_machine():
    binary = dist_file("larder-*-linux-*")
    tag = load_setup().platform_tag(binary)
    assert tag == f"manylinux_2_{newest_glibc_by_objdump(binary)}_{platform.machine()}"


def test_a_larder_built_against_the_toolchain_is_refused():
    debug = REPO / ".build" / "debug" / "larder"
    if not debug.is_file():
        missing(f"no {debug}: run `swift build`")
    with pytest.raises(SystemExit) as refused:
        load_setup().platform_tag(debug)
    message = str(refused.value)
    assert "is not self-contained: it needs libsqlite3.so.0, libcrypto.so.3, " in message
    assert "libswiftCore.so" in message
    assert "bash .ci/dist" in message


def test_the_wheel_carries_the_executable_whole_and_runnable():
    binary = dist_file("larder-*-linux-*")
    wheel = dist_file("larder-*.whl")
    tag = f"py3-none-manylinux_2_{newest_glibc_by_objdump(binary)}_{platform.machine()}"
    assert wheel.name.endswith(f"-{tag}.whl")
    with zipfile.ZipFile(wheel) as z:
        inside = z.getinfo("larder/bin/larder")
        assert inside.external_attr >> 16 & 0o777 == 0o755
        assert z.read(inside) == binary.read_bytes()
        info = next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))
        wheel_file = z.read(info).decode()
    assert "Root-Is-Purelib: false" in wheel_file
    assert f"Tag: {tag}" in wheel_file


def test_building_from_source_without_a_toolchain_names_every_package_it_needs(tmp_path):
    # PATH without swift: the build from source (.ci/dist --binary) stops
    # before building, naming the toolchain and the Debian packages.
    path = [d for d in os.environ["PATH"].split(os.pathsep) if not (Path(d) / "swift").exists()]
    env = {k: v for k, v in os.environ.items() if k != "LARDER_PACKAGE_BINARY"}
    env["PATH"] = os.pathsep.join(path)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path),
                        str(REPO / "clients" / "python")], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0
    assert "cannot build larder: missing a Swift 6 toolchain" in r.stdout + r.stderr
    assert "apt-get install libsqlite3-dev libssl-dev libpq-dev pkg-config binutils g++" in r.stdout + r.stderr
    assert not list(tmp_path.glob("*.whl"))
