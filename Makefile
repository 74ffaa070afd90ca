# Two entry points (see README Quickstart): `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The CPU build of torch; a looser spec would pull a multi-GB CUDA build.
TORCH_CPU ?= torch==2.13.0

.PHONY: demo test lint typecheck venv-core venv-dev

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

venv-core: $(BIN)/python
	$(BIN)/pip install -q -e .

venv-dev: $(BIN)/python
	$(BIN)/pip install -q $(TORCH_CPU)
	$(BIN)/pip install -q -e '.[dev,distill,mcp,dense,answer,documents,serve,ann,ray]'

demo: venv-core
	$(BIN)/ark demo

lint: venv-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: venv-dev
	$(BIN)/mypy cli agent tools graphs distill rank evals answer prompts

test: venv-dev lint typecheck
	$(BIN)/python -m pytest -q
