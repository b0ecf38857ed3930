"""Shared fixtures: the real ``larder`` binary ($LARDER_BIN or the debug build)."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

import larder

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
FIXTURES = HERE / "fixtures"
FAKE_SIDECAR = HERE / "fake_sidecar.py"
CLOCK = "2026-01-01T00:00:00Z"
TEST_ARGS = ["--enable-test-methods", "--clock", CLOCK]


def missing(reason: str) -> None:
    """Skips a test whose prerequisite is missing, except in CI (``CI=true``),
    where a missing binary, transcript or document is a failure."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: nothing may be skipped)")
    pytest.skip(reason)


def larder_binary() -> str | None:
    env = os.environ.get("LARDER_BIN")
    if env:
        return env
    debug = REPO / ".build" / "debug" / "larder"
    return str(debug) if debug.is_file() else None


@pytest.fixture(scope="session")
def binary() -> str:
    path = larder_binary()
    if path is None or not os.access(path, os.X_OK):
        missing("no larder binary: set $LARDER_BIN or run `swift build` in the repository")
    return path


@pytest.fixture
def db(binary):
    """An in-memory sidecar with the test methods and a fixed clock."""
    with larder.Larder.spawn(memory=True, binary=binary, args=TEST_ARGS, timeout=60) as d:
        yield d


@pytest.fixture
def store_dir(tmp_path):
    return tmp_path / "store"


@pytest.fixture
def fake():
    """A Python stand-in sidecar (tests/fake_sidecar.py) for protocol features
    the real server does not have yet ($/progress, migrate.object)."""
    with larder.Larder.spawn(binary=sys.executable, args=[str(FAKE_SIDECAR)], timeout=30) as d:
        yield d


class Waiter:
    """Collects callback arguments; ``wait(n)`` blocks until n arrived."""

    def __init__(self) -> None:
        self.items: list = []
        self._cond = threading.Condition()

    def __call__(self, item) -> None:
        with self._cond:
            self.items.append(item)
            self._cond.notify_all()

    def wait(self, n: int = 1, timeout: float = 10.0) -> list:
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.items) >= n, timeout), f"got only {self.items}"
            return list(self.items)


@pytest.fixture
def waiter():
    return Waiter()
