# The two commands: `make run` and `make test`. Each sets up everything it needs itself.
# `make test-fast` leaves out the slow simulations and the browser tests (a few minutes).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
HOST   ?= localhost
PORT   ?= 8501
PYTEST_ARGS ?= -n 2 --dist worksteal --durations=30

# Nothing may reach a model hub at run time (design.md, "Models offline").
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: run replicas status stop test test-fast install migrate setup lint bench clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(PY) cli.py migrate

setup: migrate
	$(PY) cli.py seed-demo --if-empty

run: setup
	$(PY) cli.py admin-password --if-unset
	$(PY) cli.py serve --host $(HOST) --port $(PORT)

# N replicas behind HAProxy on the PostgreSQL of DATABASE_URL, under supervisord
# (docs/deployment.md); `make status` and `make stop` from another shell.
REPLICAS ?= 2
replicas: install
	deploy/replicas.sh $(REPLICAS)

status:
	$(PY) cli.py deploy-status

stop:
	$(PY) cli.py deploy-stop

test: setup
	$(PY) -m pytest $(PYTEST_ARGS)

# Everything but the tests marked slow (long simulations) and browser: ≤ 4 minutes on 2 cores.
test-fast: setup
	$(PY) -m pytest $(PYTEST_ARGS) -m "not slow and not browser"

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest -q -p no:cacheprovider tests/test_layers.py tests/test_rooms.py

bench: install
	@for b in $(filter-out bench/tour.py,$(wildcard bench/*.py)); do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
