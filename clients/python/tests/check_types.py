"""``mypy --strict`` over the package and over the Python examples in the
client's README (each ```python block, checked as one module).

    python3 clients/python/tests/check_types.py

Exits with mypy's status. Needs mypy (``pip install mypy``)."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[1]


def main() -> int:
    readme = (CLIENT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    if not blocks:
        print("no ```python examples in README.md", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        examples = Path(tmp) / "readme_examples.py"
        examples.write_text("\n\n".join(blocks))
        command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(CLIENT / "larder"), str(examples)]
        return subprocess.run(command, cwd=CLIENT).returncode


if __name__ == "__main__":
    sys.exit(main())
