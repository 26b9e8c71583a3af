"""Peak memory and time of a restore of the hostile files of issue #18, each in a fresh process.

Writes three files of --megabytes (100) each into a temporary folder: a backup whose
``players`` is ``[0,0,…]``, one whose ``games`` is ``[0,0,…]``, and one with millions of
unknown top-level keys; then restores each with ``exchange.import_file`` on an empty SQLite
database in a child process and prints its answer (the first line of the refusal), the
seconds it took and the child's peak resident memory over a child that only imported the
app. Run from the project root: `.venv/bin/python bench/restore_attacks.py [--megabytes 100]`
(to measure another checkout's code, put it first on PYTHONPATH).
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
from scorekeeper import create_app, exchange
from scorekeeper.extensions import db
app = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite:///" + sys.argv[2], "SECRET_KEY": "b"})
with app.app_context():
    db.create_all()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    began = time.perf_counter()
    if sys.argv[1] == "-":
        answer = "nothing"
    else:
        with open(sys.argv[1], "rb") as handle:
            try:
                answer = exchange.import_file(handle).message
            except exchange.ImportProblem as problem:
                answer = "refused: " + problem.problems[0]
    took = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"answer": answer[:110], "seconds": took, "peak_mb": (peak - base) / 1024}))
"""


def write(path: Path, head: str, item: str, tail: str, size: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        handle.write(head)
        block = item * 100_000
        written = len(head)
        while written < size:
            handle.write(block)
            written += len(block)
        handle.write(tail)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=100)
    args = parser.parse_args()
    size = args.megabytes * 1024 * 1024
    folder = Path(tempfile.mkdtemp(prefix="wizard-restore-"))
    envelope = '{"format":"wizard-scorekeeper","version":2,"kind":"backup",'
    files = {
        "players [0,0,…]": (envelope + '"players":[0', ",0", '],"games":[]}'),
        "games [0,0,…]": (envelope + '"players":[],"games":[0', ",0", "]}"),
        "unknown keys": (envelope + '"players":[],"games":[]', "", "}"),
    }
    for number, (name, (head, item, tail)) in enumerate(files.items()):
        path = folder / f"attack{number}.json"
        if name == "unknown keys":
            with path.open("w", encoding="utf-8") as handle:
                handle.write(head)
                key, written = 0, len(head)
                while written < size:
                    chunk = "".join(f',"k{key + i}":0' for i in range(100_000))
                    key += 100_000
                    handle.write(chunk)
                    written += len(chunk)
                handle.write(tail)
        else:
            write(path, head, item, tail, size)
        result = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), str(folder / f"db{number}.sqlite")],
            capture_output=True,
            text=True,
            check=True,
        )
        figures = json.loads(result.stdout.strip().splitlines()[-1])
        print(
            f"{name:<18} {figures['seconds']:7.2f} s  +{figures['peak_mb']:6.0f} MB  "
            f"{figures['answer']}"
        )
        path.unlink()


if __name__ == "__main__":
    main()
