"""Finding the ``larder`` executable."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Sequence

__all__ = ["PACKAGED_BINARY", "command_line", "find_binary"]

#: Where ``pip install`` puts the executable it builds (see setup.py).
PACKAGED_BINARY = Path(__file__).resolve().parent / "bin" / "larder"


def find_binary(binary: str | os.PathLike[str] | None = None) -> str:
    """Where the ``larder`` executable is: ``binary`` if given, else
    ``$LARDER_BIN``, else the one installed inside this package, else
    ``larder`` on ``PATH``. Raises :class:`FileNotFoundError` naming each
    place tried."""
    if binary:
        return os.fspath(binary)
    env = os.environ.get("LARDER_BIN")
    if env:
        return env
    if PACKAGED_BINARY.is_file() and os.access(PACKAGED_BINARY, os.X_OK):
        return str(PACKAGED_BINARY)
    on_path = shutil.which("larder")
    if on_path:
        return on_path
    raise FileNotFoundError(
        "cannot find the larder executable; tried: the binary= argument (not given), $LARDER_BIN (not set), "
        f"{PACKAGED_BINARY} (not there: `pip install ./clients/python` builds it), "
        "larder on PATH (not found)"
    )


def command_line(binary: str | os.PathLike[str] | None, store: str | os.PathLike[str] | None, memory: bool,
                 args: Sequence[str], key_file: str | os.PathLike[str] | None = None,
                 pg_schema: str | None = None) -> list[str]:
    """The command that starts a sidecar: the executable (see
    :func:`find_binary`), ``--store`` (a directory or a ``postgresql://``
    URL) or ``--memory``, ``--pg-schema``, ``--key-file``, then ``args``.
    ``pg_schema`` is passed on as given: the sidecar refuses it without a
    store on PostgreSQL."""
    if store is not None and memory:
        raise ValueError("give store or memory=True, not both")
    command = [find_binary(binary)]
    if store is not None:
        command += ["--store", os.fspath(store)]
    if pg_schema is not None:
        command += ["--pg-schema", pg_schema]
    if memory:
        command.append("--memory")
    if key_file is not None:
        command += ["--key-file", os.fspath(key_file)]
    return command + [str(a) for a in args]
