"""Larder's Python client side by side with redis-py and diskcache, in one run.

    python3 clients/python/bench/compare.py [--keys 20000] [--rounds 3]

Installs what is missing first: redis-server with apt-get (Debian), redis-py
with hiredis and diskcache with pip. Every store is on disk in a temporary
directory: larder with ``--store`` and a memory tier large enough for every
key (as redis keeps every key in memory); redis on a Unix socket with AOF
``everysec``; diskcache in-process. Values are 100 bytes. Pipelines send
1000 calls per burst on both clients.

Besides the three libraries it measures two floors, in the same run:
``cat`` — a bare Python loop writing a fixed request line to ``cat`` and
reading it back, the cost of a round trip through a pipe (mostly the kernel
waking the other process) — and the server's own rates, fed pre-encoded
requests through a pipe one at a time and all at once, which no client can
beat. The server floors send every key once untimed before timing, so that
their gets are memory-tier hits like the client's.

Each rate is the best of ``--rounds``. Speed is machine-dependent: compare
the ratios, which the table prints next to the targets.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import larder  # noqa: E402

PIPELINE = 1000


def install_missing() -> None:
    if shutil.which("redis-server") is None:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run([*sudo, "apt-get", "update", "-qq"], check=True)
        subprocess.run([*sudo, "apt-get", "install", "-y", "-qq", "redis-server"], check=True,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    missing = []
    for module, package in (("redis", "redis[hiredis]"), ("hiredis", "hiredis"), ("diskcache", "diskcache")):
        try:
            __import__(module)
        except ImportError:
            missing.append(package)
    if missing:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", *missing], check=True)


def best(rounds: int, n: int, run: Callable[[], None]) -> float:
    """Operations per second: ``n`` operations, the best of ``rounds`` runs."""
    fastest = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        fastest = min(fastest, time.perf_counter() - start)
    return n / fastest


def bench_larder(keys: list[str], value: str, rounds: int, store: Path) -> dict[str, float]:
    rates = {}
    with larder.Larder.spawn(store=store) as db:
        cache = db.cache
        # Redis holds every key in memory: so does larder's memory tier here
        # (its default, 10,000 entries, would keep none of 20,000 keys read
        # in turn). The setting is kept in the store, for the floors too.
        cache.open("default", memory={"max_count": len(keys)})

        def seq_set() -> None:
            for k in keys:
                cache.set(k, value)

        def seq_get() -> None:
            for k in keys:
                cache.get(k)

        def pipe_set() -> None:
            for i in range(0, len(keys), PIPELINE):
                with db.pipeline() as p:
                    pset = p.cache.set
                    for k in keys[i:i + PIPELINE]:
                        pset(k, value)

        def pipe_get() -> None:
            for i in range(0, len(keys), PIPELINE):
                with db.pipeline() as p:
                    pget = p.cache.get
                    for k in keys[i:i + PIPELINE]:
                        pget(k)

        rates["sequential set"] = best(rounds, len(keys), seq_set)
        rates["sequential get"] = best(rounds, len(keys), seq_get)
        rates["pipelined set"] = best(rounds, len(keys), pipe_set)
        rates["pipelined get"] = best(rounds, len(keys), pipe_get)
        assert cache.get(keys[-1]) == value
    return rates


def bench_redis(keys: list[str], value: str, rounds: int, workdir: Path) -> dict[str, float]:
    import redis

    sock = workdir / "redis.sock"
    server = subprocess.Popen(
        ["redis-server", "--port", "0", "--unixsocket", str(sock), "--dir", str(workdir),
         "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        r = redis.Redis(unix_socket_path=str(sock))
        for _ in range(100):
            try:
                r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        rates = {}

        def seq_set() -> None:
            for k in keys:
                r.set(k, value)

        def seq_get() -> None:
            for k in keys:
                r.get(k)

        def pipe_set() -> None:
            for i in range(0, len(keys), PIPELINE):
                p = r.pipeline(transaction=False)
                for k in keys[i:i + PIPELINE]:
                    p.set(k, value)
                p.execute()

        def pipe_get() -> None:
            for i in range(0, len(keys), PIPELINE):
                p = r.pipeline(transaction=False)
                for k in keys[i:i + PIPELINE]:
                    p.get(k)
                p.execute()

        rates["sequential set"] = best(rounds, len(keys), seq_set)
        rates["sequential get"] = best(rounds, len(keys), seq_get)
        rates["pipelined set"] = best(rounds, len(keys), pipe_set)
        rates["pipelined get"] = best(rounds, len(keys), pipe_get)
        r.close()
        return rates
    finally:
        server.terminate()
        server.wait()


def bench_diskcache(keys: list[str], value: str, rounds: int, workdir: Path) -> dict[str, float]:
    import diskcache

    with diskcache.Cache(str(workdir / "diskcache")) as c:
        def set_all() -> None:
            for k in keys:
                c.set(k, value)

        def get_all() -> None:
            for k in keys:
                c.get(k)

        return {"set": best(rounds, len(keys), set_all), "get": best(rounds, len(keys), get_all)}


def bench_cat(n: int, rounds: int) -> float:
    """A fixed request line written to ``cat`` and read back, one at a time."""
    line = b'{"jsonrpc":"2.0","id":1,"method":"cache.get","params":{"key":"key00001"}}\n'
    return max(round_trips(["cat"], [line] * n) for _ in range(rounds))


def round_trips(command: list[str], lines: list[bytes], warm: list[bytes] | None = None) -> float:
    """A bare loop: each line written to ``command`` and its answer line
    read back before the next. ``warm`` (by default the first hundred
    lines) is sent first, untimed."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    wfd, rfd = proc.stdin.fileno(), proc.stdout.fileno()

    def loop(batch: list[bytes]) -> None:
        for line in batch:
            os.write(wfd, line)
            data = os.read(rfd, 65536)
            while not data.endswith(b"\n"):
                data += os.read(rfd, 65536)

    try:
        loop(lines[:100] if warm is None else warm)
        start = time.perf_counter()
        loop(lines)
        return len(lines) / (time.perf_counter() - start)
    finally:
        proc.stdin.close()
        proc.wait()


def bench_server_sequential(keys: list[str], store: Path, value: str | None = None) -> float:
    """The server alone, one pre-encoded get (or set of ``value``) at a time.
    Every key is sent once untimed first, so that the timed gets are
    memory-tier hits like the client's (a fresh process starts with an
    empty memory tier and would read each key from disk)."""
    if value is None:
        params = ['{"key":"%s"}' % k for k in keys]
        method = "cache.get"
    else:
        params = ['{"key":"%s","value":"%s"}' % (k, value) for k in keys]
        method = "cache.set"
    lines = [('{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}\n' % (i, method, p)).encode()
             for i, p in enumerate(params, 1)]
    return round_trips([larder.find_binary(), "--store", str(store)], lines, warm=lines)


def bench_server(keys: list[str], rounds: int, store: Path) -> float:
    """The server alone: pre-encoded gets written through a pipe as fast as
    it takes them, answers counted as they come. One process answers every
    pass; the first, untimed, brings each key into the memory tier, so that
    the timed passes measure memory-tier hits like the client's."""
    payload = "".join(
        '{"jsonrpc":"2.0","id":%d,"method":"cache.get","params":{"key":"%s"}}\n' % (i, k)
        for i, k in enumerate(keys, 1)).encode()
    proc = subprocess.Popen([larder.find_binary(), "--store", str(store)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    stdin, rfd = proc.stdin, proc.stdout.fileno()

    def write() -> None:
        stdin.write(payload)
        stdin.flush()

    def run() -> float:
        writer = threading.Thread(target=write)
        lines = 0
        start = time.perf_counter()
        writer.start()
        while lines < len(keys):
            data = os.read(rfd, 1 << 20)
            if not data:
                raise RuntimeError("larder exited during the benchmark")
            lines += data.count(b"\n")
        elapsed = time.perf_counter() - start
        writer.join()
        return elapsed

    try:
        run()
        return len(keys) / min(run() for _ in range(rounds))
    finally:
        stdin.close()
        proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-install", action="store_true", help="do not install redis or pip packages")
    args = parser.parse_args(argv)
    if not args.no_install:
        install_missing()
    keys = [f"key{i:06}" for i in range(args.keys)]
    value = "v" * 100
    rates: dict[str, dict[str, float]] = {}

    def keep(name: str, measured: dict[str, float]) -> None:
        mine = rates.setdefault(name, {})
        for k, v in measured.items():
            mine[k] = max(mine.get(k, 0.0), v)

    # Each round measures everything once, so that a machine whose load
    # changes during the run affects every contestant alike; the best of
    # the rounds is kept.
    with tempfile.TemporaryDirectory(prefix="larder-bench-") as tmp:
        work = Path(tmp)
        for _ in range(args.rounds):
            keep("larder", bench_larder(keys, value, 1, work / "larder"))
            keep("redis", bench_redis(keys, value, 1, work))
            keep("diskcache", bench_diskcache(keys, value, 1, work))
            keep("floors", {"cat": bench_cat(args.keys, 1),
                            "server sequential": bench_server_sequential(keys, work / "larder"),
                            "server sequential set": bench_server_sequential(keys, work / "larder", value),
                            "server pipelined": bench_server(keys, 1, work / "larder")})
    ours, theirs, disk, floors = rates["larder"], rates["redis"], rates["diskcache"], rates["floors"]
    cat = floors["cat"]

    print(f"{args.keys} keys, 100-byte values, pipelines of {PIPELINE}; best of {args.rounds}")
    print(f"{platform.node()}: {os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}")
    print()
    rows: list[tuple[str, float, float, float | None, str]] = [
        ("sequential get", ours["sequential get"], theirs["sequential get"], 1.5, "redis-py"),
        ("sequential set", ours["sequential set"], theirs["sequential set"], 1.0, "redis-py"),
        ("pipelined get", ours["pipelined get"], theirs["pipelined get"], 1.2, "redis-py"),
        ("pipelined get", ours["pipelined get"], disk["get"], 1.0, "diskcache"),
        ("pipelined set", ours["pipelined set"], theirs["pipelined set"], 0.8, "redis-py"),
        ("sequential set", ours["sequential set"], disk["set"], None, "diskcache"),
    ]
    print(f"| {'operation':<15} | {'larder':>9} | {'other':>9} | {'against':<9} | {'ratio':>5} | target |")
    print(f"|{'-' * 17}|{'-' * 11}|{'-' * 11}|{'-' * 11}|{'-' * 7}|--------|")
    met = True
    for name, mine, other, target, against in rows:
        ratio = mine / other
        ok = "" if target is None else (f">= {target}" + (" ok" if ratio >= target else " MISSED"))
        met = met and (target is None or ratio >= target)
        print(f"| {name:<15} | {mine:>7.0f}/s | {other:>7.0f}/s | {against:<9} | {ratio:>5.2f} | {ok} |")
    print()
    print("Floors, same run:")
    print(f"  cat round trip (sequential):              {cat:>8.0f}/s = {cat / theirs['sequential get']:.2f}x redis-py"
          f" get; larder's sequential get is {ours['sequential get'] / cat:.0%} of it")
    seq = floors["server sequential"]
    print(f"  server, pre-encoded gets one at a time:   {seq:>8.0f}/s;"
          f" larder's sequential get is {ours['sequential get'] / seq:.0%} of it")
    seq_set = floors["server sequential set"]
    print(f"  server, pre-encoded sets one at a time:   {seq_set:>8.0f}/s;"
          f" larder's sequential set is {ours['sequential set'] / seq_set:.0%} of it")
    server = floors["server pipelined"]
    print(f"  server, pre-encoded gets all at once:     {server:>8.0f}/s;"
          f" larder's pipelined get is {ours['pipelined get'] / server:.0%} of it")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
