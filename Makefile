# mcr-env: `make run` (train + evaluate the default agent) and `make test` (the test suite).
# Both set up .venv first when it is missing or pyproject.toml changed.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed

.PHONY: setup test run lint bench clean browser

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	# CPU build from the local disk; an unpinned torch would pull a multi-GB CUDA build.
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e ".[torch,pettingzoo,reference,sb3,tianshou,dev,ray]"
	touch $(STAMP)

# The HTML viewer tests drive Debian's chromium (/usr/bin/chromium) through playwright; no
# browser is ever downloaded. Installed here when missing (CI runs as root on a fresh machine).
browser:
	@test -x /usr/bin/chromium || { \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

test: $(STAMP) browser
	$(PY) -m ruff check mcr_env baselines scripts tests examples
	$(PY) -m pytest -q -n 2

run: $(STAMP)
	$(PY) scripts/train.py --config configs/default.yaml

lint: $(STAMP)
	$(PY) -m ruff check mcr_env baselines scripts tests examples
	$(PY) -m ruff format --check mcr_env baselines scripts tests examples

bench: $(STAMP)
	$(PY) scripts/bench_scoring.py
	$(PY) scripts/bench_engine.py

clean:
	rm -rf $(VENV) runs .pytest_cache
