"""Slow clients and throughput: the server `make run` starts against the gunicorn it replaced.

Seeds a SQLite database with history.py's seeder (--games finished games), then serves it
twice in one run on free 127.0.0.1 ports: with `flask serve`'s server (cli.server_command:
granian, the body read on its event loop before an app thread is taken) and with the
gunicorn command `make run` used before (2 workers x 4 threads, gthread). For each:

1. throughput: wrk (16 connections, --seconds) on /healthz and three pages, in two passes
   taken in turn with the other server, printed as requests per second and new/old ratio;
2. slow clients: --connections (50) sockets that send half a request and then nothing more
   (`GET /healthz HTTP/1.1`, `Host`, no blank line), as many that trickle a header a byte a
   second, and as many that declare a form body and send one byte of it, all held open while
   /healthz is asked --probes times (1 s timeout each); printed: probes answered within 1 s
   and the slowest answer.

Run from the project root: `.venv/bin/python bench/slowclients.py [--seconds 3]`. It needs
`wrk`. The last line is a summary.
"""

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from history import free_port, seed, wait_until_up  # noqa: E402
from perf import wrk  # noqa: E402

from scorekeeper.cli import server_command, server_environment  # noqa: E402

PAGES = {"/healthz": "/healthz", "home": "/", "games list": "/history/", "a game": "/history/7"}


def old_command(port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "2",
        "--threads",
        "4",
        "--log-level",
        "warning",
        "scorekeeper:create_app()",
    ]


def probe(port: int) -> float | None:
    """Seconds /healthz took to answer 200, or None if it did not within 1 s."""
    began = time.perf_counter()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as answer:
            answer.read()
            ok = answer.status == 200
    except OSError:
        return None
    took = time.perf_counter() - began
    return took if ok and took <= 1 else None


def slow_clients(port: int, connections: int, probes: int) -> tuple[int, float]:
    """Hold three kinds of slow clients open while probing /healthz."""
    held: list[socket.socket] = []
    stop = threading.Event()

    def opened() -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        held.append(sock)
        return sock

    for _ in range(connections):
        opened().sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        opened().sendall(
            b"POST /games/new HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n\r\na"
        )
    tricklers = [opened() for _ in range(connections)]

    def trickle() -> None:
        line = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100
        for byte in line:
            if stop.wait(1):
                return
            for sock in tricklers:
                with contextlib.suppress(OSError):
                    sock.send(bytes([byte]))

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    time.sleep(2)
    answered = [probe(port) for _ in range(probes) if not time.sleep(0.5)]
    stop.set()
    thread.join()
    for sock in held:
        sock.close()
    times = [t for t in answered if t is not None]
    return len(times), max(times, default=float("nan"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=3, help="length of one wrk run")
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--probes", type=int, default=20)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="wizard-slow-")
    url = f"sqlite:///{Path(folder) / 'bench.sqlite'}"
    seed(url, args.games, 30)
    env = {**os.environ, "DATABASE_URL": url, "SECRET_KEY": "bench"}
    env["SCOREKEEPER_INSTANCE"] = folder
    new_port, old_port = free_port(), free_port()
    servers = {
        "new": (new_port, server_command("127.0.0.1", new_port, 2, 4), server_environment(4)),
        "old": (old_port, old_command(old_port), {}),
    }
    running = []
    log = open(Path(folder) / "servers.log", "w")  # noqa: SIM115
    try:
        for port, command, extra in servers.values():
            process = subprocess.Popen(
                command, cwd=ROOT, env={**env, **extra}, stdout=log, stderr=log
            )
            running.append(process)
            wait_until_up(port, process)
        for port, _, _ in servers.values():
            # Listening is not serving: every worker has built the app once /healthz answers.
            deadline = time.monotonic() + 60
            while probe(port) is None and time.monotonic() < deadline:
                time.sleep(0.5)
        rates: dict[tuple[str, str], list[float]] = {}
        for port, _, _ in servers.values():
            for path in PAGES.values():
                wrk(port, path, 2, {})  # warm-up
        for _ in (1, 2):
            for page, path in PAGES.items():
                for name, (port, _, _) in servers.items():
                    rate, failed = wrk(port, path, args.seconds, {})
                    if failed:
                        raise SystemExit(f"{name} {path}: {failed} answers not 2xx/3xx")
                    rates.setdefault((name, page), []).append(rate)
        print(f"\n{'page':<14}{'old req/s':>11}{'new req/s':>11}{'new/old':>9}")
        ratios = []
        for page in PAGES:
            old = statistics.mean(rates[("old", page)])
            new = statistics.mean(rates[("new", page)])
            ratios.append(new / old)
            print(f"{page:<14}{old:>11.0f}{new:>11.0f}{new / old:>8.2f}x")
        slow = {}
        for name, (port, _, _) in servers.items():
            slow[name] = slow_clients(port, args.connections, args.probes)
            answered, worst = slow[name]
            print(
                f"{name}: {3 * args.connections} slow connections: /healthz answered "
                f"{answered} of {args.probes} probes within 1 s (slowest {worst:.3f} s)"
            )
        print(
            f"SUMMARY slowclients: throughput new/old {min(ratios):.2f}x..{max(ratios):.2f}x; "
            f"under {3 * args.connections} slow connections /healthz within 1 s: new "
            f"{slow['new'][0]}/{args.probes} (slowest {slow['new'][1]:.3f} s), old "
            f"{slow['old'][0]}/{args.probes}"
        )
    finally:
        for process in running:
            process.terminate()
        for process in running:
            process.wait(timeout=30)
        log.close()


if __name__ == "__main__":
    main()
