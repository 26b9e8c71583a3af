"""The package's layering: every module has a layer, and no two modules import each other.

`lint-imports` (in `make test`) checks that no import goes up a layer; these tests keep
that contract complete as modules are added.
"""

import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent


def layer_modules() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    return {name.strip() for layer in layers for name in layer.split("|")}


def test_every_module_of_the_package_belongs_to_a_named_layer():
    graph = grimp.build_graph("scorekeeper")
    named = layer_modules()
    top_level = {
        ".".join(module.split(".")[:2]) for module in graph.modules if module != "scorekeeper"
    }
    assert top_level - named == set()


def test_no_module_imports_one_that_imports_it_back():
    graph = grimp.build_graph("scorekeeper")
    cycles = set()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if graph.chain_exists(importer=imported, imported=module):
                cycles.add(tuple(sorted((module, imported))))
    assert cycles == set()
