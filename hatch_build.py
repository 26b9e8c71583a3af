"""Build hook: compile the translation catalogues (.po → .mo) into every wheel.

The compiled files are not in git; each build makes them from the catalogues, so an
installed app always speaks the languages its source has.
"""

from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def compile_catalogue(po_path: Path) -> Path:
    """Write the messages.mo of one catalogue (…/<language>/LC_MESSAGES/messages.po)."""
    with po_path.open("rb") as po_file:
        catalog = read_po(po_file, locale=po_path.parts[-3])
    mo_path = po_path.with_suffix(".mo")
    with mo_path.open("wb") as mo_file:
        write_mo(mo_file, catalog)
    return mo_path


def compile_catalogues(root: Path) -> list[Path]:
    """Compile every catalogue under scorekeeper/translations."""
    found = sorted((root / "scorekeeper" / "translations").glob("*/LC_MESSAGES/*.po"))
    return [compile_catalogue(po_path) for po_path in found]


class CompileCatalogues(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        for mo_path in compile_catalogues(root):
            build_data["artifacts"].append(str(mo_path.relative_to(root)))
