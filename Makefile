# Everything a newcomer needs: `make demo` and `make test` create and reuse .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint interop clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "ember needs Python >= 3.10"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,dev]"
	@touch $(STAMP)

demo: $(STAMP)
	$(PY) examples/tour.py

test: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) benchmarks/run.py

lint: $(STAMP)
	$(PY) -m ruff check ember tests benchmarks examples

# Optional peers for the interop tests and the benchmarks' ratios; tests skip without them.
interop: $(STAMP)
	$(PY) -m pip install -q "torch==2.13.0" || echo "torch==2.13.0 is not installable here; its tests will skip"
	$(PY) -m pip install -q "array-api-strict==2.6.1" || echo "array-api-strict is not installable here; its tests will skip"

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis .ruff_cache
