"""Largest contentful paint in Chromium with applied throttling, first and repeat visits,
as ratios to a static 4 KB page measured in the same run; and the bytes of each later page
of one visit.

Seeds a club (bench/history.py's seeder, --games finished games) plus perf.py's table game,
serves it as `make run` does (`flask serve`'s granian, 2 processes x 4 threads) on a free
loopback port, and perf.py's static 4 KB page from another. Debian's Chromium (through
Playwright) loads each page with the network and the processor throttled as on a phone on
4G — 40 ms round trip, 10 Mbit/s down, 5 Mbit/s up, the CPU 4 times slower (Chrome DevTools
Protocol: Network.emulateNetworkConditions, Emulation.setCPUThrottlingRate):

- first visit: a new browser context (empty cache), the page opened once;
- repeat visit: the same context opens the page again (the stylesheet and scripts come from
  the cache, the page itself is revalidated: a 304 for a page that only reads).

Each is the median of --runs runs; the LCP is read from the page's own
PerformanceObserver. Then one visit walks home → games list → a game's page → a player's
page → the ladder → setup and prints the bytes each later page took on the wire (the
document and every file not served from the browser's cache, headers included). Targets (issue
#29): first visit <= 1.3x and repeat visit <= 1.1x the static page's LCP; a later page of a
visit <= 8 KB. Run from the project root:

    .venv/bin/python bench/lcp.py [--games 2000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from history import free_port, seed  # noqa: E402
from perf import prepare, serve_static, served, start  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from scorekeeper.cli import server_environment  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# A phone on 4G (bytes per second for the throughputs).
NETWORK = {
    "offline": False,
    "latency": 40,
    "downloadThroughput": 10_000_000 / 8,
    "uploadThroughput": 5_000_000 / 8,
}
CPU_SLOWDOWN = 4
FIRST_TARGET = 1.3
REPEAT_TARGET = 1.1
LATER_PAGE_BUDGET = 8 * 1024
PAGES = (
    "home",
    "table step (bids, 4 players)",
    "score sheet (3 players, 20 rounds)",
    "games list",
    "a game's page",
    "a player's page",
)
WALK = ("home", "games list", "a game's page", "a player's page", "ladder", "setup /games/new")

# The largest contentful paint so far (ms after the navigation began), once the page has
# loaded and a moment has passed for a later, larger paint.
LCP = """() => new Promise(resolve => {
  let last = 0;
  new PerformanceObserver(list => {
    for (const entry of list.getEntries()) last = entry.startTime;
  }).observe({type: "largest-contentful-paint", buffered: true});
  const settle = () => setTimeout(() => resolve(last), 300);
  if (document.readyState === "complete") settle();
  else addEventListener("load", settle);
})"""


def throttled(context):
    """A page of ``context`` with the phone's network and processor."""
    page = context.new_page()
    session = context.new_cdp_session(page)
    session.send("Network.enable")
    session.send("Network.emulateNetworkConditions", NETWORK)
    session.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    return page


def visits(browser, url: str, runs: int) -> tuple[float, float]:
    """The median LCP (ms) of a first visit and of a repeat visit of ``url``."""
    first, repeat = [], []
    for _ in range(runs):
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = throttled(context)
        page.goto(url, wait_until="load")
        first.append(page.evaluate(LCP))
        page.goto(url, wait_until="load")
        repeat.append(page.evaluate(LCP))
        context.close()
    return statistics.median(first), statistics.median(repeat)


def walk(browser, base: str, pages: dict[str, str]) -> dict[str, int]:
    """The bytes each page of one visit took on the wire, in :data:`WALK`'s order: every
    answer's status line, headers and body as sent (its Content-Length), except a static
    file answered from the browser's cache (a hashed file is kept a year: Chromium asks for
    it once). Playwright's own request sizes are negative for later pages under the
    network emulation, and Chromium's transferSize counts some compressed documents
    decoded, so the answers are counted as they come."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = throttled(context)
    fetched: list[int] = []
    cached: set[str] = set()

    def answered(response) -> None:
        url = response.url
        if "/static/" in url and url in cached:
            return  # from the browser's cache: no byte on the wire
        if "/static/" in url:
            cached.add(url)
        headers = response.headers
        head = len(f"HTTP/1.1 {response.status} {response.status_text}\r\n") + 2
        head += sum(len(name) + len(value) + 4 for name, value in headers.items())
        fetched.append(head + int(headers.get("content-length", "0")))

    page.on("response", answered)
    taken = {}
    for name in WALK:
        fetched.clear()
        page.goto(base + pages[name], wait_until="load")
        page.wait_for_timeout(400)  # the scripts the loader starts after the first paint
        taken[name] = sum(fetched)
    context.close()
    return taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=30)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="wizard-lcp-")
    url = f"sqlite:///{Path(folder) / 'bench.sqlite'}"
    servers = []
    static_server = None
    try:
        seed(url, args.games, args.players)
        pages = prepare(url)
        port = free_port()
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "SECRET_KEY": "bench",
            "SCOREKEEPER_INSTANCE": folder,
        } | server_environment(4)
        servers.append(start(served(port, "scorekeeper.serving:asgi_app"), env, port))
        static_server = serve_static(Path(folder) / "static-page")
        static_url = f"http://127.0.0.1:{static_server.server_address[1]}/static.html"
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            # Warm-up: the server's templates and caches, the browser's own start.
            visits(browser, static_url, 1)
            for name in PAGES:
                visits(browser, base + pages[name], 1)
            measured = {"static 4 KB page": visits(browser, static_url, args.runs)}
            for name in PAGES:
                measured[name] = visits(browser, base + pages[name], args.runs)
            taken = walk(browser, base, pages)
            browser.close()
    finally:
        if static_server is not None:
            static_server.shutdown()
            static_server.server_close()
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)

    static_first, static_repeat = measured["static 4 KB page"]
    print(
        f"\nLCP in Chromium, throttled: {NETWORK['latency']} ms RTT, 10 Mbit/s, CPU "
        f"{CPU_SLOWDOWN}x slower; median of {args.runs} runs; {args.games} games"
    )
    print(f"{'page':<38}{'first':>8}{'ratio':>8}{'repeat':>8}{'ratio':>8}  targets")
    held, missed = [], []
    for name, (first, repeat) in measured.items():
        ratio_first, ratio_repeat = first / static_first, repeat / static_repeat
        verdict = ""
        if name != "static 4 KB page":
            ok_first, ok_repeat = ratio_first <= FIRST_TARGET, ratio_repeat <= REPEAT_TARGET
            verdict = (
                f"first <= {FIRST_TARGET}x {'ok' if ok_first else 'MISSED'}, "
                f"repeat <= {REPEAT_TARGET}x {'ok' if ok_repeat else 'MISSED'}"
            )
            (held if ok_first else missed).append(f"{name} first {ratio_first:.2f}x")
            (held if ok_repeat else missed).append(f"{name} repeat {ratio_repeat:.2f}x")
        print(
            f"{name:<38}{first:>7.0f}ms{ratio_first:>7.2f}x{repeat:>6.0f}ms{ratio_repeat:>7.2f}x"
            f"  {verdict}"
        )
    print("\none visit, page after page (bytes on the wire, headers included)")
    for number, (name, size) in enumerate(taken.items()):
        if number == 0:
            print(f"  {name:<36}{size / 1024:>7.1f} KB  (the first page)")
            continue
        ok = size <= LATER_PAGE_BUDGET
        (held if ok else missed).append(f"later page {name} {size / 1024:.1f} KB")
        print(f"  {name:<36}{size / 1024:>7.1f} KB  <= 8 KB {'ok' if ok else 'MISSED'}")
    print(
        f"\nSUMMARY lcp: {len(held)} of {len(held) + len(missed)} targets hold"
        + (f"; missed: {'; '.join(missed)}" if missed else "")
    )


if __name__ == "__main__":
    main()
