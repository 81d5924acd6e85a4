# Everything a newcomer needs: `make demo` and `make test` create and reuse .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: demo tour test fuzz bench bench-all lint interop tf-oracle array-api-tests clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "ember needs Python >= 3.10"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,dev]"
	@touch $(STAMP)

# The demo extra (scikit-learn ships the digits, matplotlib draws the loss curve), best effort for matplotlib:
# without it the demo still trains and says it drew no curve. Nothing downloads when the demo runs.
$(DEMO_STAMP): $(STAMP)
	$(PY) -m pip install -q -e ".[test,dev,demo]" || { \
	  echo "the demo extra did not install in full; trying scikit-learn alone (no loss-curve PNG)"; \
	  $(PY) -m pip install -q "scikit-learn>=1.3"; }
	@touch $(DEMO_STAMP)

# The main job: train the seed's TinyModel on the 8x8 digits (output under build/demo/).
demo: $(DEMO_STAMP)
	$(PY) examples/train_digits.py --num-workers 2

tour: $(STAMP)
	$(PY) examples/tour.py

test: $(STAMP)
	$(PY) -m pytest -q

# The fuzzing suite with a larger budget than `make test` gives it (EXAMPLES calls per op, fresh draws
# each run); FUZZ_LOG=path collects every finding instead of stopping at the first of each op.
EXAMPLES ?= 200
fuzz: $(STAMP)
	EMBER_FUZZ_EXAMPLES=$(EXAMPLES) $(if $(FUZZ_LOG),EMBER_FUZZ_COLLECT=$(FUZZ_LOG)) $(PY) -m pytest -q tests/fuzz

# The speed issue's rows at one thread (about 10 minutes on two cores): their cases, then a table of every
# row with ember, NumPy and PyTorch side by side, the ratio and the target. BENCH_ARGS passes
# more (--quick, --json out.json, --filter ...). `bench-all` runs every case and multi-process job
# (500 MB checkpoints, MPI ranks: well over 10 minutes), ending with the same table.
BENCH_ARGS ?=
bench: $(STAMP)
	$(PY) benchmarks/run.py --threads 1 --issue $(BENCH_ARGS)

bench-all: $(STAMP)
	$(PY) benchmarks/run.py $(BENCH_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check ember tests benchmarks examples

# The array API test suite (data-apis/array-api-tests, standard 2025.12) against ember.array_api:
# ARRAY_API_TESTS=<path to a checkout with its array-api submodule>; it needs ndindex and
# pytest-json-report in .venv. Not part of `make test` (minutes); docs/array-api.md has the results.
# ARRAY_API_MODULE=array_api_strict (or numpy) runs the same suite on a peer for comparison;
# ARRAY_API_ARGS passes pytest more (-k eye, -x, ...).
ARRAY_API_TESTS ?=
ARRAY_API_MODULE ?= ember.array_api
ARRAY_API_EXAMPLES ?= 50
array-api-tests: $(STAMP)
	@test -n "$(ARRAY_API_TESTS)" || { echo "set ARRAY_API_TESTS=<path to an array-api-tests checkout>"; exit 1; }
	@test -d "$(ARRAY_API_TESTS)/array_api_tests" || { echo "$(ARRAY_API_TESTS) holds no array_api_tests folder"; exit 1; }
	@$(PY) -c 'import ndindex, pytest_jsonreport' 2>/dev/null || { echo "the suite needs ndindex and pytest-json-report: $(PY) -m pip install ndindex pytest-json-report"; exit 1; }
	cd "$(ARRAY_API_TESTS)" && ARRAY_API_TESTS_MODULE=$(ARRAY_API_MODULE) ARRAY_API_TESTS_VERSION=2025.12 \
	  PYTHONPATH=$(CURDIR) $(abspath $(PY)) -m pytest array_api_tests -q -p no:cacheprovider \
	  --max-examples=$(ARRAY_API_EXAMPLES) --disable-warnings -rf $(ARRAY_API_ARGS)

# Optional peers for the interop tests and the benchmarks' ratios; tests skip without them.
interop: $(STAMP)
	$(PY) -m pip install -q "torch==2.13.0" || echo "torch==2.13.0 is not installable here; its tests will skip"
	$(PY) -m pip install -q "array-api-strict==2.6.1" || echo "array-api-strict is not installable here; its tests will skip"
	$(PY) -m pip install -q "jax[cpu]" || echo "jax is not installable here; its DLPack tests will skip"
	$(PY) -m pip install -q safetensors || echo "safetensors is not installable here; the checkpoint format tests against it will skip"
	$(PY) -m pip install -q tensorboard || echo "tensorboard (TensorFlow's TensorProto, the wire-compatibility oracle) is not installable here; those tests will skip"

# TensorFlow as the oracle of ember.compat.v1 (opt-in, not part of `interop`: about 1.6 GB and a
# minute to install). The tests that compare with TensorFlow then run live, the TF1 program corpus
# under both frameworks; tf_keras (without its dependencies) gives TF 2.21 its tf.layers.
tf-oracle: $(STAMP)
	$(PY) -m pip install -q "tensorflow-cpu==2.21.0"
	$(PY) -m pip install -q --no-deps "tf_keras==2.21.0"
	TF_USE_LEGACY_KERAS=1 $(PY) -m pytest -q -p no:cacheprovider tests/tf1_programs tests/compat tests/graph

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis .ruff_cache
