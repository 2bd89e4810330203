# The two commands: `make run` and `make test`. Each sets up everything it needs itself.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
HOST   ?= localhost
PORT   ?= 8501
PYTEST_ARGS ?= -n 2

# Nothing may reach a model hub at run time (design.md, "Models offline").
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: run replicas test install migrate setup lint bench clean

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

# N replicas behind HAProxy on the PostgreSQL of DATABASE_URL (docs/deployment.md).
REPLICAS ?= 2
replicas: install
	deploy/replicas.sh $(REPLICAS)

test: setup
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q -p no:cacheprovider tests/test_layers.py

bench: install
	@for b in $(filter-out bench/tour.py,$(wildcard bench/*.py)); do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
