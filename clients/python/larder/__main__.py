"""``python -m larder [ARGS]``: runs the ``larder`` executable this package
finds (see :func:`larder.find_binary`) with ARGS — ``--version``, ``--help``,
``replay FILE|DIR...``, or the options that serve on stdin/stdout.
``--version`` names this client's version too."""

from __future__ import annotations

import os
import subprocess
import sys

from .binary import find_binary
from .client import CLIENT_NAME, CLIENT_VERSION


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        binary = find_binary()
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        return 127
    if args == ["--version"]:
        print(f"{CLIENT_NAME} {CLIENT_VERSION}", flush=True)
        return subprocess.run([binary, "--version"]).returncode
    os.execv(binary, [binary, *args])
    return 0  # pragma: no cover - execv does not return


if __name__ == "__main__":
    sys.exit(main())
