"""Soak a page under the README's server settings and count dead gunicorn workers.

Seeds a temporary database (or uses --database-url), serves it as `make run` does
(gunicorn, 2 workers × 4 threads) on a free loopback port, loads one page with wrk for
--seconds at --connections, then reads gunicorn's log: a worker that died (a signal such
as SIGSEGV, or an exit) shows as a "Booting worker" beyond the first ones. Prints the
request count, errors and dead workers, and a summary line. Run from the project root:

    .venv/bin/python bench/soak.py [--seconds 60] [--connections 16] [--page game]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from history import free_port, seed, wait_until_up  # noqa: E402

PAGES = {"game": "/history/{game}", "sheet": "/games/{game}/sheet", "list": "/history/"}
WORKERS, THREADS = 2, 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--page", choices=sorted(PAGES), default="game")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--database-url", help="PostgreSQL to seed and use (default: SQLite)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    folder = Path(tempfile.mkdtemp(prefix="scorekeeper-soak-"))
    url = args.database_url or f"sqlite:///{folder / 'soak.sqlite'}"
    seed(url, args.games, 30)
    port = free_port()
    log = folder / "gunicorn.log"
    env = os.environ | {"DATABASE_URL": url, "SCOREKEEPER_INSTANCE": str(folder)}
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        f"--bind=127.0.0.1:{port}",
        f"--workers={WORKERS}",
        f"--threads={THREADS}",
        "scorekeeper:create_app()",
    ]
    with log.open("w") as output:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=output)
        try:
            wait_until_up(port, server)
            target = f"http://127.0.0.1:{port}" + PAGES[args.page].format(game=args.games // 2)
            load = subprocess.run(
                ["wrk", "-t2", f"-c{args.connections}", f"-d{args.seconds}s", target],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        finally:
            server.terminate()
            server.wait(timeout=30)
    text = log.read_text()
    booted = len(re.findall(r"Booting worker", text))
    dead = max(0, booted - WORKERS)
    signals = sorted(set(re.findall(r"was sent (SIG\w+)|exited with code (\d+)", text)))
    requests = re.search(r"(\d+) requests in", load)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", load)
    print(load.strip())
    print(f"page {target}")
    print(f"dead workers: {dead} {signals if signals else ''}".rstrip())
    print(
        f"summary: {requests.group(1) if requests else '?'} requests in {args.seconds} s, "
        f"{errors.group(1) if errors else 0} non-2xx, {dead} dead workers"
    )
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
