"""Finding the ``larder`` executable."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Literal, Sequence

__all__ = ["PACKAGED_BINARY", "PgCoherence", "command_line", "find_binary"]

#: Where ``pip install`` puts the executable it builds (see setup.py).
PACKAGED_BINARY = Path(__file__).resolve().parent / "bin" / "larder"

#: How a sidecar on PostgreSQL learns of other sidecars' writes before
#: answering from its memory tiers (``--pg-coherence``, ``initialize``'s
#: ``store.coherence``): ``strict`` reads the commit count once per burst of
#: input, ``notify`` waits for PostgreSQL's notifications, ``poll`` reads the
#: count at most every 50 ms.
PgCoherence = Literal["strict", "notify", "poll"]


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
                 pg_schema: str | None = None, pg_coherence: PgCoherence | None = None) -> list[str]:
    """The command that starts a sidecar: the executable (see
    :func:`find_binary`), ``--store`` (a directory or a ``postgresql://``
    URL) or ``--memory``, ``--pg-schema``, ``--pg-coherence``,
    ``--key-file``, then ``args``. ``pg_schema`` and ``pg_coherence`` are
    passed on as given: the sidecar refuses them without a store on
    PostgreSQL, and a mode it does not know."""
    if store is not None and memory:
        raise ValueError("give store or memory=True, not both")
    command = [find_binary(binary)]
    if store is not None:
        command += ["--store", os.fspath(store)]
    if pg_schema is not None:
        command += ["--pg-schema", pg_schema]
    if pg_coherence is not None:
        command += ["--pg-coherence", pg_coherence]
    if memory:
        command.append("--memory")
    if key_file is not None:
        command += ["--key-file", os.fspath(key_file)]
    return command + [str(a) for a in args]
