"""A game's rules are read once per stored value in each worker (records.stored_rules): on the
server as ``make run`` starts it, a table that changes its later rounds while phones read its
pages and another game's: every page shows the plan as last saved or newer, each game its own.
"""

from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.evening_play import Table
from tests.real_server import Visitor, served

pytestmark = pytest.mark.real_server

ROUNDS = re.compile(r"Round 1 of (\d+)")
NAMES = ("Ann", "Bob", "Cy")


def test_phones_see_each_game_s_own_plan_as_last_saved_while_the_table_changes_it(
    tmp_path: Path,
):
    with served(tmp_path / "instance") as server:
        table = Table(Visitor(server.url))
        changing = table.start_game(NAMES, 0, custom="1, 2, 3")
        # Another game under rules that differ only in its plan, never changed.
        steady = table.start_game(NAMES, 0, custom="1, 3, 2")
        saved = {"rounds": 3}  # what the last completed save made of the changing game
        stop = threading.Event()

        def read(path: str) -> int:
            found = ROUNDS.search(Visitor(server.url).get(path).body)
            assert found, path
            return int(found.group(1))

        def phone(seen: list[tuple[int, int, int]]) -> None:
            while not stop.is_set():
                floor = saved["rounds"]
                seen.append(
                    (floor, read(f"/games/{changing.game_id}"), read(f"/games/{steady.game_id}"))
                )

        readings: list[list[tuple[int, int, int]]] = [[] for _ in range(4)]
        with ThreadPoolExecutor(len(readings)) as pool:
            phones = [pool.submit(phone, seen) for seen in readings]
            try:
                # Each save one round longer: the round being played (1 card), then the later.
                for later in ("2, 3, 4", "2, 3, 4, 5", "2, 3, 4, 5, 6", "2, 3, 4, 5, 6, 7"):
                    table.post(changing, "plan", {"later": later})
                    saved["rounds"] = 1 + len(later.split(","))
                    # The table's next look, as another phone: the plan just saved.
                    assert read(f"/games/{changing.game_id}") == saved["rounds"]
            finally:
                stop.set()
            for done in phones:
                done.result()
        seen = [reading for phone_readings in readings for reading in phone_readings]
        assert len(seen) >= 8, seen
        assert all(rounds >= floor for floor, rounds, _ in seen), seen
        assert {other for _, _, other in seen} == {3}
        server.assert_no_dead_worker()
