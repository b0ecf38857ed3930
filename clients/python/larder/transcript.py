"""``python -m larder.transcript [--binary PATH] FILE|DIR...``: replays
transcripts (``*.transcript``, see ``protocol/transcripts/README.md``) with
``larder replay``, the one replayer, built into the server. Prints what it
prints; exits 0 when every transcript passes."""

from __future__ import annotations

import argparse
import subprocess
import sys

from .binary import find_binary

__all__ = ["main", "replay"]


def replay(paths: list[str], binary: str | None = None) -> subprocess.CompletedProcess[str]:
    """Runs ``larder replay`` on ``paths``; its output is in ``.stdout``
    (with what it wrote to stderr) and ``.returncode`` is 0 when all passed."""
    return subprocess.run([find_binary(binary), "replay", *paths], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m larder.transcript", description=__doc__.splitlines()[0])
    parser.add_argument("--binary", help="the larder executable (default: see larder.find_binary)")
    parser.add_argument("paths", nargs="+", metavar="FILE|DIR")
    args = parser.parse_args(argv)
    try:
        result = replay(args.paths, args.binary)
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        return 127
    sys.stdout.write(result.stdout)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
