# Two commands on a fresh machine: `make run` (serve the bundled sample) and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: install run test lint typecheck pytest token es-start es-stop es-status bench sample clean
.PHONY: cluster-test fhir-validate
.PHONY: engine-start engine-stop container-bases image container-test

# uv resolves and installs the packages (seconds, against pip's most of a minute); pip stays in
# the environment for what calls it (devtools/wheelhouse.py).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check 'uv>=0.5,<1'
	$(VENV)/bin/uv pip install -q --python $(PY) -e '.[dev]'
	touch $(STAMP)

# The HAPI FHIR validator the tests run offline against the Plan-Net packages (tests/fhir_validator.py).
VALIDATOR := tools/fhir-validator/target/.built
$(VALIDATOR): tools/fhir-validator/pom.xml $(shell find tools/fhir-validator/src -name '*.java')
	mvn -q -B -f tools/fhir-validator/pom.xml package -DskipTests
	touch $@

install: $(STAMP) $(VALIDATOR)

run: install
	$(PY) -m devtools.run_dev

# The three side by side: lint and mypy run while the suite's first half-minute mostly waits (its
# Elasticsearch node starting, the sample loading); any one failing fails the target.
test: install
	$(MAKE) --no-print-directory -j3 --output-sync=target lint typecheck pytest

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

typecheck: install
	$(VENV)/bin/mypy

# Four workers (pytest-xdist) on the one Elasticsearch node, on two cores (README "Tests": a worker
# waiting leaves its core to another): a module at a time to each, every FHIR test to one of them
# (tests/conftest.py). PYTEST_WORKERS=0 runs the suite in one process.
PYTEST_WORKERS ?= 4
pytest: install
	$(VENV)/bin/pytest -q -rs --durations=15 -n $(PYTEST_WORKERS)

token: install
	@$(PY) -m service.cli token

# NODES=1: the single development node; NODES=3: a local cluster of three (devtools/cluster.py),
# whose URLs es-start prints comma-separated, as ELASTICSEARCH_URL takes them.
NODES ?= 1
es-start: install
	$(PY) -m devtools.es_launcher start --nodes $(NODES)

es-stop: install
	$(PY) -m devtools.es_launcher stop --nodes $(NODES)

es-status: install
	$(PY) -m devtools.es_launcher status --nodes $(NODES)

# Tests that start their own Elasticsearch clusters (tests/cluster/: the launcher's cluster, a
# node killed under load); `make test` skips them. PD_NODE_LOSS_FIGURES=file keeps the figures.
# The two modules side by side (each mostly waits on its JVMs), the launcher's output after.
cluster-test: install
	@log=$$(mktemp); \
	PD_CLUSTER_TESTS=1 $(VENV)/bin/pytest -q -p no:cacheprovider --durations=5 \
	  tests/cluster/test_launcher_cluster.py >"$$log" 2>&1 & launcher=$$!; \
	PD_CLUSTER_TESTS=1 $(VENV)/bin/pytest -q --durations=15 tests/cluster/test_node_loss.py; \
	loss=$$?; wait $$launcher; launched=$$?; cat "$$log"; rm -f "$$log"; \
	test $$loss -eq 0 -a $$launched -eq 0

# Search and coverage harnesses against an index already loaded under BENCH_PREFIX (`make run`
# loads the sample under the default prefix); the indexer harness and the 134k/1M runs are in
# BENCHMARKS.md.
BENCH_PREFIX ?= provider-directory
bench: install
	export ELASTICSEARCH_URL=$$($(PY) -m devtools.es_launcher start) && \
	$(PY) -m bench.search_bench --prefix $(BENCH_PREFIX) && \
	$(PY) -m bench.coverage_bench --prefix $(BENCH_PREFIX)

sample: install
	$(PY) -m devtools.build_sample

# Every resource /fhir serves for the sample with its Plan-Net reference export through the HAPI
# validator, none with an error (minutes; `make test` validates each shape once):
# tests/service/fhir/test_fhir_sweep.py, on a node it starts unless ELASTICSEARCH_URL is set.
fhir-validate: install
	PD_FHIR_SWEEP=1 $(VENV)/bin/pytest -q -p no:randomly --durations=5 tests/service/fhir/test_fhir_sweep.py

# Containers (README "Container deployment"). engine-start: dockerd without a bridge when no
# engine answers (devtools/engine.py); container-bases: the debootstrap stand-in base images
# (cached); image: provider-directory:latest, printing what docker-compose.yml reads;
# container-test: the image and the compose stack end to end, and the launcher's Docker modes
# (PD_CONTAINER_TESTS=1: there a missing engine fails the run under CI=true; tests.conftest).
engine-start: install
	$(PY) -m devtools.engine start

engine-stop: install
	$(PY) -m devtools.engine stop

container-bases: install
	$(PY) -m devtools.base_images

image: install
	$(PY) -m devtools.image

container-test: install
	PD_CONTAINER_TESTS=1 $(VENV)/bin/pytest -q --durations=15 tests/containers tests/devtools/test_launcher_modes.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
