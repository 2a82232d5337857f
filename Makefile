# robots-census: a thin Makefile over cargo. `make run` and `make test` are the two
# commands a newcomer needs (see README.md).

CARGO ?= cargo
VENV := .venv
PYTHON := $(VENV)/bin/python
OUT ?= out
BIN := target/release/robots-census

.PHONY: all build run test venv lint fmt check-fmt clippy doc clean schemas

all: build

build:
	$(CARGO) build --release --locked

# Python tools the tests need (Google's reference parser, DuckDB), pinned in requirements.txt.
$(VENV)/.installed: requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

venv: $(VENV)/.installed

# The main job on the bundled samples: every table under $(OUT)/.
run: build
	$(BIN) run data-samples/cc-robotstxt-sample.warc.gz data-samples/IAH-urls-wget.warc.gz data-samples/robots-dump.csv.gz \
		--urls data-samples/urls.txt --urls-per-host 5 --out $(OUT) --overwrite
	@echo "tables written to $(OUT)/ -- query them with DuckDB, e.g. duckdb -c '.read queries/ai_agent_blocking.sql' (see queries/README.md)"

check-fmt:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --all-targets --locked -- -D warnings

doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --locked

# Everything CI runs: formatting, lints, docs, unit + integration tests (release mode:
# the differential test asks Google's parser millions of questions).
test: venv check-fmt clippy doc
	ROBOTS_CENSUS_PYTHON=$(abspath $(PYTHON)) $(CARGO) test --release --locked

# Regenerate schemas/<table>.json from the code (then review the diff).
schemas:
	UPDATE_SCHEMAS=1 $(CARGO) test --release --locked --test it schema

clean:
	rm -rf target $(OUT) $(VENV)
