"""Export games as CSV and JSON; back up and restore the whole instance.

The JSON format is described in ``docs/export-format.md`` and, for its shape, in
``export-format.schema.json`` beside this file. A game export and a backup share one
envelope (``format``, ``version``, ``kind``, ``players``, ``games``), so either can be
imported. Restoring checks the whole file first and writes it in one transaction: a file
with any problem changes nothing.

:mod:`.export` writes, :mod:`.schema` checks the shape, :mod:`.restore` checks the rest and
reads; the names below are the package's public API.
"""

from .export import (
    CSV_COLUMNS,
    FORMULA_STARTS,
    backup_chunks,
    backup_json,
    dumps,
    envelope,
    full_query,
    game_csv,
    game_data,
    game_json,
    neutralise,
    secret_rounds,
    timestamp,
    without_secret_bids,
)
from .restore import (
    MAX_PROBLEMS_SHOWN,
    ImportProblem,
    ImportResult,
    content_problems,
    import_file,
    parse,
    parse_time,
    restore,
)
from .schema import FORMAT, VERSION, shape_problems

__all__ = [
    "CSV_COLUMNS",
    "FORMAT",
    "FORMULA_STARTS",
    "MAX_PROBLEMS_SHOWN",
    "VERSION",
    "ImportProblem",
    "ImportResult",
    "backup_chunks",
    "backup_json",
    "content_problems",
    "dumps",
    "envelope",
    "full_query",
    "game_csv",
    "game_data",
    "game_json",
    "import_file",
    "neutralise",
    "parse",
    "parse_time",
    "restore",
    "secret_rounds",
    "shape_problems",
    "timestamp",
    "without_secret_bids",
]
