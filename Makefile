# Wizard Scorekeeper — `make run` to play, `make test` to check everything.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
WORKERS ?= 2
export FLASK_APP := scorekeeper
# The rules module's own tests run first, alone, under branch coverage (it must be 100 %).
RULES_TESTS := tests/test_rules.py tests/test_rules_properties.py

# Translation catalogues, compiled whenever a .po is newer than its .mo.
CATALOGUES := $(wildcard scorekeeper/translations/*/LC_MESSAGES/messages.po)
COMPILED := $(CATALOGUES:.po=.mo)

.PHONY: run test lint format bench clean translations

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-run

%.mo: %.po | $(BIN)/python
	$(BIN)/python -c "import hatch_build, pathlib; hatch_build.compile_catalogue(pathlib.Path('$<'))"

## translations: extract the messages, merge them into every catalogue, compile them
translations: $(VENV)/.installed-test
	$(BIN)/pybabel extract -F babel.cfg -k _l -k _simple -k lazy_gettext --project "Wizard Scorekeeper" --copyright-holder "the Wizard Scorekeeper authors" -o scorekeeper/translations/messages.pot .
	$(BIN)/pybabel update -i scorekeeper/translations/messages.pot -d scorekeeper/translations --no-fuzzy-matching --ignore-obsolete
	$(BIN)/python -c "import hatch_build, pathlib; hatch_build.compile_catalogues(pathlib.Path('.'))"

## run: set up .venv, migrate the database, serve on 0.0.0.0:$(PORT) and print the phone address
run: $(VENV)/.installed-run $(COMPILED)
	exec $(BIN)/flask serve --port $(PORT) --workers $(WORKERS)

## test: set up .venv with the test extras, lint, check formatting and layers, run the suite
test: $(VENV)/.installed-test $(COMPILED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -p no:cacheprovider $(RULES_TESTS) --cov=scorekeeper.rules --cov-branch --cov-report=term-missing --cov-fail-under=100
	$(BIN)/python -m pytest -n 2 --dist worksteal $(addprefix --ignore=,$(RULES_TESTS))

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(VENV)/.installed-test
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache test-artifacts
