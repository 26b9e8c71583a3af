"""One codec for a stored round: the history snapshot (undo) and the export record.

Both formats derive from :data:`ROUND_FIELDS` (the round's own columns) and
:data:`SEAT_FIELDS` (each player's entry), so a new column is one edit here. Only
:mod:`scorekeeper.models` is used: no Flask, no database session.

A history snapshot keeps the seat fields as lists indexed by seat (``"bids"``,
``"cloud_bid"``, ``"tricks"``), exactly as histories already stored in databases have them;
an export round keeps them as ``"entries"``: one ``{"seat", "bid", "cloud_bid", "tricks"}``
per player, as ``docs/export-format.md`` describes.

A change's history keeps only what it touched (:func:`compact_states`): a round it changed
names only the fields that differ (a seat field as one value per seat, or as an object
naming the one seat that changed, ``{"2": 3}``), the status, finish time and rules only when
they changed. A full snapshot is such a delta that names every field, so the histories
stored before keep working. :func:`overlay_round` puts a delta onto a full snapshot, and
:func:`expand_states` walks a history back from the game as it is now, giving every change
its whole before and after (what the history page describes).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from .models import Entry, Round

# The round's stored columns, in the order both formats write them. ``number`` is the round's
# identity within its game.
ROUND_FIELDS = (
    "number",
    "hand_size",
    "dealer",
    "state",
    "trump",
    "trump_cause",
    "werewolf_played",
    "werewolf_trump",
    "bomb_played",
    "cloud_seat",
)
# Each player's stored entry in a round, besides its seat.
SEAT_FIELDS = ("bid", "cloud_bid", "tricks")
# The seat fields nobody may see while bids are secret.
BID_FIELDS = ("bid", "cloud_bid")
# History snapshots spell one list differently from the column (kept for stored histories).
_SNAPSHOT_KEYS = {"bid": "bids"}


def snapshot_key(name: str) -> str:
    """The key under which a history snapshot keeps the per-seat list of ``name``."""
    return _SNAPSHOT_KEYS.get(name, name)


def _default(name: str) -> Any:
    """What a round column holds when a record leaves it out: the model's default, or None."""
    default = Round.__table__.columns[name].default
    return default.arg if default is not None and default.is_scalar else None


def _value(data: Mapping[str, Any], name: str) -> Any:
    return data[name] if name in data else _default(name)


# --- history snapshots ---------------------------------------------------------------------


def round_snapshot(round_: Round) -> dict[str, Any]:
    """Everything stored about a round, as a history snapshot: fields, then one list per seat."""
    by_seat = {entry.seat: entry for entry in round_.entries}
    seats = range(max(by_seat) + 1) if by_seat else range(0)
    data = {name: getattr(round_, name) for name in ROUND_FIELDS}
    for name in SEAT_FIELDS:
        data[snapshot_key(name)] = [
            getattr(by_seat[seat], name) if seat in by_seat else None for seat in seats
        ]
    return data


def apply_snapshot(round_: Round, data: Mapping[str, Any], seats: int = 0) -> None:
    """Put a whole history snapshot onto ``round_`` (the round with the snapshot's number):
    a round an undo brings back.

    Every round field is written (a field the snapshot lacks takes the column's default),
    and every seat's entry (at least ``seats`` of them), created if the round has none for
    that seat yet; a seat value the snapshot lacks is empty.
    """
    for name in ROUND_FIELDS:
        if name != "number":
            setattr(round_, name, _value(data, name))
    lists = {name: seat_values(data.get(snapshot_key(name))) for name in SEAT_FIELDS}
    entries = {entry.seat: entry for entry in round_.entries}
    count = max([seats, *(max(values, default=-1) + 1 for values in lists.values())])
    for seat in range(count):
        entry = entries.get(seat)
        if entry is None:
            entry = Entry(seat=seat)
            round_.entries.append(entry)
        for name, values in lists.items():
            setattr(entry, name, values.get(seat))


def apply_delta(round_: Round, data: Mapping[str, Any]) -> None:
    """Put the fields a history delta names back onto ``round_`` (an undo of a change to an
    existing round); the fields and seats it does not name are left as they are."""
    for name in ROUND_FIELDS:
        if name != "number" and name in data:
            setattr(round_, name, data[name])
    entries = {entry.seat: entry for entry in round_.entries}
    for name in SEAT_FIELDS:
        if snapshot_key(name) not in data:
            continue
        for seat, value in seat_values(data[snapshot_key(name)]).items():
            entry = entries.get(seat)
            if entry is None:
                entry = entries[seat] = Entry(seat=seat)
                round_.entries.append(entry)
            setattr(entry, name, value)


def hide_snapshot_bids(data: Mapping[str, Any]) -> dict[str, Any]:
    """A history snapshot or delta with its bids blanked (the tricks and everything else
    kept): every value of ``bids`` and ``cloud_bid`` it names becomes null."""
    hidden = dict(data)
    for name in BID_FIELDS:
        values = data.get(snapshot_key(name))
        if isinstance(values, list):
            hidden[snapshot_key(name)] = [None] * len(values)
        elif isinstance(values, Mapping):
            hidden[snapshot_key(name)] = dict.fromkeys(values)
    return hidden


# --- compact history: what a change touched ------------------------------------------------

# The game's own fields a before/after state names when a change touched them.
STATE_FIELDS = ("status", "finished_at", "rules")
SEAT_KEYS = tuple(snapshot_key(name) for name in SEAT_FIELDS)


def seat_values(values: Any) -> dict[int, Any]:
    """A seat field of a snapshot or delta by seat: a list holds every seat's value (position
    = seat), an object only the seats it names (``{"2": 3}``); anything else names none."""
    if isinstance(values, list):
        return dict(enumerate(values))
    if isinstance(values, Mapping):
        return {int(seat): value for seat, value in values.items()}
    return {}


def _seat_delta(was: Any, now: Any) -> tuple[Any, Any] | None:
    """The seats whose value differs: every seat's value (lists) when more than one changed
    and both sides list them all, else an object per side naming the seats that changed."""
    old, new = seat_values(was), seat_values(now)
    changed = sorted(seat for seat in old.keys() | new.keys() if old.get(seat) != new.get(seat))
    if not changed:
        return None
    if len(changed) > 1 and isinstance(was, list) and isinstance(now, list):
        return was, now
    return (
        {str(seat): old.get(seat) for seat in changed},
        {str(seat): new.get(seat) for seat in changed},
    )


def _round_delta(was: Mapping[str, Any], now: Mapping[str, Any]) -> tuple[dict, dict]:
    """One round before and after a change, keeping only what differs (and its number)."""
    old: dict[str, Any] = {"number": was["number"]}
    new: dict[str, Any] = {"number": now["number"]}
    for key in was.keys() | now.keys():
        if key == "number":
            continue
        if key in was and key in now:
            if key in SEAT_KEYS:
                pair = _seat_delta(was[key], now[key])
                if pair is not None:
                    old[key], new[key] = pair
            elif was[key] != now[key]:
                old[key], new[key] = was[key], now[key]
        elif key in was:
            old[key] = was[key]
        else:
            new[key] = now[key]
    return _sorted(old), _sorted(new)


def _sorted(data: dict[str, Any]) -> dict[str, Any]:
    return {key: data[key] for key in sorted(data)}


def _is_state(state: Any) -> bool:
    return isinstance(state, Mapping) and isinstance(state.get("rounds"), list)


def compact_states(before: Any, after: Any) -> tuple[Any, Any]:
    """A change's before and after keeping only what it touched: the rounds it changed with
    only their fields that differ, a round it dealt or removed whole on its one side, the
    status with the finish time when the status changed, the finish time or rules when they
    changed, and whatever else ``after`` says (``undoes``, ``plan`` …). Compacting a compact
    pair changes nothing; anything that is not a before/after state is kept as it is."""
    if not (_is_state(before) and _is_state(after)):
        return before, after
    old: dict[str, Any] = {}
    new: dict[str, Any] = {}
    for name in STATE_FIELDS:
        # The finish time goes with a status that changed, even when it stayed empty.
        kept_with_status = name == "finished_at" and "status" in old
        unchanged = name in before and name in after and before[name] == after[name]
        if unchanged and not kept_with_status:
            continue
        if name in before:
            old[name] = before[name]
        if name in after:
            new[name] = after[name]
    for source, target in ((before, old), (after, new)):
        for key, value in source.items():
            if key not in STATE_FIELDS and key != "rounds":
                target[key] = value
    was = {data["number"]: data for data in before["rounds"] if isinstance(data, Mapping)}
    now = {data["number"]: data for data in after["rounds"] if isinstance(data, Mapping)}
    old["rounds"], new["rounds"] = [], []
    for number in sorted(was.keys() | now.keys()):
        if number in was and number in now:
            round_before, round_after = _round_delta(was[number], now[number])
            old["rounds"].append(round_before)
            new["rounds"].append(round_after)
        elif number in was:
            old["rounds"].append(was[number])
        else:
            new["rounds"].append(now[number])
    return _sorted(old), _sorted(new)


def full_snapshot(data: Mapping[str, Any], seats: int) -> dict[str, Any]:
    """A round a change dealt or removed, as a whole snapshot: the fields it lacks take the
    column's default, the seat values it lacks are empty (``seats`` values per list)."""
    snapshot = {name: _value(data, name) for name in ROUND_FIELDS}
    for key in SEAT_KEYS:
        values = seat_values(data.get(key))
        count = max(seats, max(values, default=-1) + 1)
        snapshot[key] = [values.get(seat) for seat in range(count)]
    return snapshot


def overlay_round(
    base: Mapping[str, Any] | None, delta: Mapping[str, Any], seats: int
) -> dict[str, Any]:
    """The whole snapshot of a round once ``delta`` is put onto ``base`` (its whole snapshot
    now); with no ``base`` (the round does not exist) the delta is read as a whole round."""
    if base is None:
        return full_snapshot(delta, seats)
    snapshot = dict(base)
    for key, value in delta.items():
        if key in SEAT_KEYS:
            known = seat_values(base.get(key))
            values = [known.get(seat) for seat in range(max(seats, max(known, default=-1) + 1))]
            for seat, seat_value in seat_values(value).items():
                values.extend([None] * (seat + 1 - len(values)))
                values[seat] = seat_value
            snapshot[key] = values
        else:
            snapshot[key] = value
    return snapshot


def step_back(
    state: dict[str, Any], before: Mapping[str, Any], dealt: Iterable[int], seats: int
) -> dict[str, Any]:
    """The game state (``status``, ``finished_at``, ``rules`` and ``rounds`` by number, whole
    snapshots) before a change, from the state after it: the rounds it ``dealt`` removed,
    its ``before`` put back (a round ``before`` names that does not exist after the change,
    one the change removed, comes back whole). A state naming its status without a finish
    time is from before finish times were kept: the finish time is empty."""
    rounds = dict(state["rounds"])
    for number in dealt:
        rounds.pop(number, None)
    for data in before.get("rounds", []):
        rounds[data["number"]] = overlay_round(rounds.get(data["number"]), data, seats)
    earlier = {**state, "rounds": rounds}
    for name in STATE_FIELDS:
        if name in before:
            earlier[name] = before[name]
    if "status" in before and "finished_at" not in before:
        earlier["finished_at"] = None
    return earlier


def _numbers(state: Any) -> list[int]:
    rounds = state.get("rounds") if isinstance(state, Mapping) else None
    if not isinstance(rounds, list):
        return []
    return [data["number"] for data in rounds if isinstance(data, Mapping) and "number" in data]


def _whole(state: Mapping[str, Any], numbers: Sequence[int], extra: Any) -> dict[str, Any]:
    """A before/after as old histories stored it: the game's fields and whole rounds."""
    whole = {name: state.get(name) for name in STATE_FIELDS}
    whole["rounds"] = [state["rounds"][n] for n in numbers if n in state["rounds"]]
    if isinstance(extra, Mapping):
        whole |= {k: v for k, v in extra.items() if k not in STATE_FIELDS and k != "rounds"}
    return whole


def expand_states(
    now: dict[str, Any], pairs: Sequence[tuple[Any, Any]], seats: int
) -> Iterator[tuple[Any, Any]]:
    """Every change's whole before and after, newest first, walking back from the game as
    it is ``now`` (``status``, ``finished_at``, ``rules``, ``rounds`` by number): each names
    the rounds its change touched as whole snapshots. A pair that is not a before/after
    state (the start of the game) is given as it is."""
    state = now
    for before, after in reversed(pairs):
        if not (_is_state(before) and _is_state(after)):
            yield before, after
            continue
        touched_before, touched_after = _numbers(before), _numbers(after)
        dealt = [n for n in touched_after if n not in touched_before]
        # What the change itself stored wins over the game (a history made by hand may differ).
        state = step_back(state, after, [], seats)
        earlier = step_back(state, before, dealt, seats)
        yield _whole(earlier, touched_before, None), _whole(state, touched_after, after)
        state = earlier


# --- export records ------------------------------------------------------------------------


def round_export(round_: Round, hide_bids: bool = False) -> dict[str, Any]:
    """A round as the export format writes it; ``hide_bids`` blanks every bid (secret bids)."""
    entries = []
    for entry in sorted(round_.entries, key=lambda entry: entry.seat):
        record = {"seat": entry.seat}
        for name in SEAT_FIELDS:
            record[name] = None if hide_bids and name in BID_FIELDS else getattr(entry, name)
        entries.append(record)
    return {**{name: getattr(round_, name) for name in ROUND_FIELDS}, "entries": entries}


def round_from_export(data: Mapping[str, Any]) -> Round:
    """A new, unsaved round from an export record (already checked by the import)."""
    round_ = Round(**{name: _value(data, name) for name in ROUND_FIELDS})
    for record in sorted(data["entries"], key=lambda record: record["seat"]):
        round_.entries.append(
            Entry(seat=record["seat"], **{name: record.get(name) for name in SEAT_FIELDS})
        )
    return round_
