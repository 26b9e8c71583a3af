"""One codec for a stored round: the history snapshot (undo) and the export record.

Both formats derive from :data:`ROUND_FIELDS` (the round's own columns) and
:data:`SEAT_FIELDS` (each player's entry), so a new column is one edit here. Only
:mod:`scorekeeper.models` is used: no Flask, no database session.

A history snapshot keeps the seat fields as lists indexed by seat (``"bids"``,
``"cloud_bid"``, ``"tricks"``), exactly as histories already stored in databases have them;
an export round keeps them as ``"entries"``: one ``{"seat", "bid", "cloud_bid", "tricks"}``
per player, as ``docs/export-format.md`` describes (format version 1).
"""

from __future__ import annotations

from collections.abc import Mapping
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


def apply_snapshot(round_: Round, data: Mapping[str, Any]) -> None:
    """Put a history snapshot back onto ``round_`` (the round with the snapshot's number).

    Every round field is written (a field an older snapshot lacks takes the column's
    default), and every seat's entry, created if the round has none for that seat yet.
    """
    for name in ROUND_FIELDS:
        if name != "number":
            setattr(round_, name, _value(data, name))
    lists = {name: data.get(snapshot_key(name)) or [] for name in SEAT_FIELDS}
    entries = {entry.seat: entry for entry in round_.entries}
    for seat in range(max(len(values) for values in lists.values())):
        entry = entries.get(seat)
        if entry is None:
            entry = Entry(seat=seat)
            round_.entries.append(entry)
        for name, values in lists.items():
            setattr(entry, name, values[seat] if seat < len(values) else None)


def hide_snapshot_bids(data: Mapping[str, Any]) -> dict[str, Any]:
    """A history snapshot with its bids blanked (the tricks and everything else kept)."""
    hidden = dict(data)
    for name in BID_FIELDS:
        values = data.get(snapshot_key(name))
        if isinstance(values, list):
            hidden[snapshot_key(name)] = [None] * len(values)
    return hidden


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
