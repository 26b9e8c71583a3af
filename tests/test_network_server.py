"""The attacks of issue #18 on the server `make run` starts (`flask serve`, here on 127.0.0.1
and a free port, one worker process with two threads, a password set): every answer a
refusal of one line, no 5xx, the worker's memory within +50 MB of what it used before, and
/healthz answering while slow clients hold connections open. Loopback only; each attack is
bounded (tens of MB, a few seconds). bench/slowclients.py and bench/restore_attacks.py give
the figures."""

import contextlib
import os
import re
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from tests.conftest import end_server, start_server

MB = 1024 * 1024
PASSWORD = "wizard"
# The worker may grow by this much under any attack (the limit).
MEMORY_MARGIN = 50 * MB


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


def rss(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) * 1024


class Server:
    def __init__(self, port: int, process: subprocess.Popen) -> None:
        self.port, self.process = port, process

    def worker(self) -> int:
        (worker,) = children(self.process.pid)
        return worker

    @contextlib.contextmanager
    def peak_growth(self) -> Iterator[list[int]]:
        """The worker's largest resident memory above its start, sampled every 20 ms."""
        worker = self.worker()
        base = rss(worker)
        found = [0]
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(0.02):
                with contextlib.suppress(OSError):
                    found[0] = max(found[0], rss(worker) - base)

        thread = threading.Thread(target=sample, daemon=True)
        thread.start()
        try:
            yield found
        finally:
            stop.set()
            thread.join()


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("served")
    port = free_port()
    env = {
        **os.environ,
        "SCOREKEEPER_INSTANCE": str(folder),
        "DATABASE_URL": f"sqlite:///{folder / 'served.sqlite'}",
        "SECRET_KEY": "served",
        "ACCESS_PASSWORD": PASSWORD,
    }
    command = [sys.executable, "-m", "flask", "--app", "scorekeeper", "serve"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--workers", "1", "--threads", "2"]
    log = (folder / "server.log").open("w")
    process = start_server(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert process.poll() is None, (folder / "server.log").read_text()
            with contextlib.suppress(OSError):
                if request(port, "GET", "/healthz")[0] == 200:
                    break
            assert time.monotonic() < deadline, "the server did not answer /healthz in 90 s"
            time.sleep(0.3)
        yield Server(port, process)
        log_text = (folder / "server.log").read_text()
        assert "Unexpected exit" not in log_text, log_text[-3000:]
    finally:
        end_server(process, 20)
        log.close()


def request(
    port: int,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    body: Iterable[bytes] = (),
    timeout: float = 30,
) -> tuple[int, dict[str, str], bytes]:
    """One request on a raw socket; the body is sent piece by piece until the server answers
    (it may answer before the body is sent, and close)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    with sock:
        head = f"{method} {path} HTTP/1.1\r\n"
        fields = {"Host": f"127.0.0.1:{port}", "Connection": "close", **(headers or {})}
        head += "".join(f"{name}: {value}\r\n" for name, value in fields.items()) + "\r\n"
        sock.sendall(head.encode("latin-1"))
        data = b""
        for piece in body:
            if select.select([sock], [], [], 0)[0]:
                break  # answered already: read it before the server's close can reset it
            try:
                sock.sendall(piece)
            except OSError:
                break
        with contextlib.suppress(ConnectionResetError):
            while True:
                if not select.select([sock], [], [], timeout)[0]:
                    break
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
                if answered_whole(data):
                    break
    head_text, _, answer = data.partition(b"\r\n\r\n")
    lines = head_text.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    parsed = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        parsed[name.strip().lower()] = parsed.get(name.strip().lower(), "") + value.strip()
    if parsed.get("transfer-encoding") == "chunked":
        answer = dechunked(answer)
    return status, parsed, answer


def answered_whole(data: bytes) -> bool:
    """Whether ``data`` holds a whole answer (by its length, or the chunked end)."""
    head, found, body = data.partition(b"\r\n\r\n")
    if not found:
        return False
    length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    if length:
        return len(body) >= int(length.group(1))
    if re.search(rb"(?im)^transfer-encoding:\s*chunked", head):
        return body.endswith(b"0\r\n\r\n")
    return False


def dechunked(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, rest = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out += rest[:size]
        data = rest[size + 2 :]
    return out


def repeated(piece: bytes, total: int) -> Iterator[bytes]:
    block = piece * (MB // len(piece))
    for _ in range(total // len(block)):
        yield block


def chunked(pieces: Iterable[bytes]) -> Iterator[bytes]:
    for piece in pieces:
        yield f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    yield b"0\r\n\r\n"


FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def test_a_huge_form_to_the_login_is_refused_before_it_is_read(server):
    with server.peak_growth() as growth:
        size = 99 * MB
        status, _, body = request(
            server.port,
            "POST",
            "/login",
            FORM | {"Content-Length": str(size)},
            repeated(b"a=1&", size),
        )
    assert status == 413
    assert b"That upload is too large." in body
    assert growth[0] < MEMORY_MARGIN


def test_parallel_large_forms_without_a_length_are_cut_off_at_the_form_limit(server):
    answers: list[tuple[int, bytes]] = []

    def post() -> None:
        pieces = chunked(repeated(b"a=1&", 30 * MB))
        status, _, body = request(
            server.port, "POST", "/login", FORM | {"Transfer-Encoding": "chunked"}, pieces
        )
        answers.append((status, body))

    with server.peak_growth() as growth:
        threads = [threading.Thread(target=post) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    assert [status for status, _ in answers] == [413, 413, 413]
    assert growth[0] < MEMORY_MARGIN


def test_a_restore_upload_without_the_password_is_sent_to_sign_in_unread(server):
    size = 30 * MB
    headers = {"Content-Type": "multipart/form-data; boundary=x", "Content-Length": str(size)}
    with server.peak_growth() as growth:
        status, answered, _ = request(
            server.port, "POST", "/history/restore", headers, repeated(b"a" * 64, size)
        )
    assert status == 303
    assert answered["location"].startswith("/login")
    assert growth[0] < MEMORY_MARGIN


def signed_in(server: Server) -> str:
    """A session cookie past the password (the login form, with its CSRF token)."""
    status, headers, page = request(server.port, "GET", "/login")
    assert status == 200
    cookie = headers["set-cookie"].split(";")[0]
    token = re.search(rb'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    form = f"csrf_token={token.decode()}&password={PASSWORD}".encode()
    status, headers, _ = request(
        server.port,
        "POST",
        "/login",
        FORM | {"Cookie": cookie, "Content-Length": str(len(form))},
        [form],
    )
    assert status == 303, "signing in failed"
    return headers["set-cookie"].split(";")[0]


@pytest.mark.parametrize(
    ("head", "item", "tail", "refusal"),
    [
        (
            '"players":[0',
            ",0",
            '],"games":[]}',
            "This file lists more than 10000 players; at most 10000 can be restored at once.",
        ),
        (
            '"players":[],"games":[0',
            ",0",
            "]}",
            "This file lists more than 100000 games; at most 100000 can be restored at once.",
        ),
        (
            '"players":[],"games":[]',
            ',"k":0',
            "}",
            "This file has a key the format does not know at its top level: “k”.",
        ),
    ],
)
def test_hostile_backups_are_refused_while_they_stream(server, head, item, tail, refusal):
    cookie = signed_in(server)
    status, _, page = request(server.port, "GET", "/history/backup", {"Cookie": cookie})
    token = re.search(rb'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    envelope = '{"format":"wizard-scorekeeper","version":2,"kind":"backup",' + head
    size = 20 * MB
    opening = (
        f'--x\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n{token.decode()}\r\n'
        '--x\r\nContent-Disposition: form-data; name="backup"; filename="b.json"\r\n'
        f"Content-Type: application/json\r\n\r\n{envelope}"
    ).encode()
    closing = f"{tail}\r\n--x--\r\n".encode()
    pieces = [opening, *repeated(item.encode(), size), closing]
    length = sum(len(piece) for piece in pieces)
    headers = {
        "Cookie": cookie,
        "Content-Type": "multipart/form-data; boundary=x",
        "Content-Length": str(length),
    }
    with server.peak_growth() as growth:
        # Checking 100,001 games takes seconds, more on a loaded machine: a generous wait.
        status, _, answer = request(
            server.port, "POST", "/history/restore", headers, pieces, timeout=180
        )
    assert status == 422
    assert refusal.replace("“", "&#8220;").encode() in answer or refusal.encode() in answer
    assert growth[0] < MEMORY_MARGIN


def test_slow_clients_do_not_stop_the_health_check(server):
    held = []
    try:
        for _ in range(50):
            half = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            half.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            stalled = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            stalled.sendall(
                b"POST /games/new HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 900\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\n\r\na"
            )
            held += [half, stalled]
        time.sleep(1)
        # Two app threads, a hundred connections waiting: each probe is still answered.
        for _ in range(5):
            assert request(server.port, "GET", "/healthz", timeout=5)[0] == 200
    finally:
        for sock in held:
            sock.close()


def test_a_foreign_host_name_gets_one_line_and_no_cookie(server):
    status, headers, body = request(
        server.port, "GET", "/history/backup.json", {"Host": "rebind.attacker.example"}
    )
    assert status == 400
    assert body == b"This name is not served here: open the app at the address its host gave.\n"
    assert "set-cookie" not in headers
