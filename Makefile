# Developer tasks. Everything runs from the project virtualenv (make install creates it).
PY ?= .venv/bin
FUZZ_EXAMPLES ?= 1000

.PHONY: install test lint type fuzz bench serve

install:
	python3 -m venv .venv && $(PY)/pip install -q -e ".[test]"

test:
	$(PY)/pytest -q

lint:
	$(PY)/ruff check . && $(PY)/ruff format --check src tests bench

type:
	$(PY)/mypy

# Schemathesis over every operation of the OpenAPI document, long (the suite runs 40 examples each).
fuzz:
	PKGINTEL_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY)/pytest -q tests/fuzz

bench:
	$(PY)/python bench/bench_api.py && $(PY)/python bench/bench_audit.py && $(PY)/python bench/bench_advisories.py

serve:
	$(PY)/pkgintel serve
