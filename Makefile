# robots-census: a thin Makefile over cargo. `make run` and `make test` are the two
# commands a newcomer needs (see README.md).

CARGO ?= cargo
VENV := .venv
PYTHON := $(VENV)/bin/python
OUT ?= out
BIN := target/release/robots-census
# The tool and its robots.txt engine crate (crates/robots-census-engine): the workspace's
# default members, linted, documented and tested together.
PACKAGES := -p robots-census -p robots-census-engine

.PHONY: all build run test venv node fmt check-fmt clippy doc docs clean schemas java wheel spark-demo scale-check chromium

all: build

build:
	$(CARGO) build --release --locked

# Python tools the tests need (Google's reference parser, DuckDB), pinned in requirements.txt.
$(VENV)/.installed: requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

venv: $(VENV)/.installed

# npm parser libraries the interpretation profiles are tested against (robots-parser),
# pinned by package-lock.json; node itself comes from the machine (apt-get nodejs npm).
node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null || { $(BENCH_SUDO) apt-get update -qq && $(BENCH_SUDO) apt-get install -y -qq nodejs npm; }
	npm ci --no-audit --no-fund --silent
	touch $@

node: node_modules/.installed

# The main job on the bundled samples: every table under $(OUT)/. Built without the study
# engine (the cargo feature `study`, DataFusion: about two thirds of a fresh release build)
# and into target/lean, so that it never replaces the full binary of `make build`.
LEAN_BIN := target/lean/release/robots-census
run:
	$(CARGO) build --release --locked --no-default-features --target-dir target/lean
	$(LEAN_BIN) run data-samples/cc-robotstxt-sample.warc.gz data-samples/IAH-urls-wget.warc.gz data-samples/robots-dump.csv.gz \
		--urls data-samples/urls.txt --urls-per-host 5 --out $(OUT) --overwrite
	@echo "tables written to $(OUT)/ -- query them in DuckDB: duckdb -init $(OUT)/_views.sql -c '.read queries/ai_agent_blocking.sql', or build the embedded engine (make build) and run $(BIN) query $(OUT) queries/ai_agent_blocking.sql (see queries/README.md)"

check-fmt:
	$(CARGO) fmt --all -- --check

# Three times: the default build; with the test-only features, whose code (fault
# injection, the external test tier) the first pass does not compile; and `make run`'s
# build without the study engine (the library and binary: the tests need the engine).
# Each covers the engine crate too; then the Python module.
clippy:
	$(CARGO) clippy $(PACKAGES) --all-targets --locked -- -D warnings
	$(CARGO) clippy $(PACKAGES) --all-targets --locked --all-features -- -D warnings
	$(CARGO) clippy $(PACKAGES) --lib --bins --locked --no-default-features -- -D warnings
	$(CARGO) clippy --locked -p robots-census-python -- -D warnings

# The engine's public API; the tool's modules are private, so its docs (for contributors)
# include private items, every link among them checked.
doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc -p robots-census-engine --no-deps --locked
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc -p robots-census --no-deps --locked --document-private-items

# Headless Chromium for the report test (tests/it/report.rs renders the page): the Debian
# package, installed only when /usr/bin/chromium is missing (apt-get needs root: sudo otherwise).
chromium:
	@test -x /usr/bin/chromium || { $(BENCH_SUDO) apt-get update -qq && $(BENCH_SUDO) apt-get install -y -qq chromium; }

# Everything CI runs: formatting, lints, docs, unit + integration tests (release mode:
# the differential test asks Google's parser millions of questions). The Spark tests
# need Java, the wheel test the wheel of dist/, the report test Chromium.
# scripts/test.sh runs `clippy doc wheel` and the test build with the oracles' answers
# computed beside them on the cores the builds leave idle, then `cargo test --release
# --locked --features fault-injection,external-tests` with the answer files.
test: venv node chromium check-fmt java
	bash scripts/test.sh $(abspath $(PYTHON)) $(SHARED) $(MAKE) $(CARGO)

# A long generative differential campaign against Google's parser: the test `make test`
# runs with 100,000 questions (tests/it/generative/), asked N questions with seed SEED.
# One process pair (the test and the Python oracle), so it takes about one core.
N    ?= 1000000
SEED ?= 1

.PHONY: fuzz
fuzz: venv
	ROBOTS_CENSUS_PYTHON=$(abspath $(PYTHON)) ROBOTS_CENSUS_FUZZ_QUESTIONS=$(N) ROBOTS_CENSUS_FUZZ_SEED=$(SEED) \
	  $(CARGO) test --release --locked --features fault-injection,external-tests --test it -- --exact generative::generated_bodies_agree_with_robots_cc --nocapture

# Regenerate docs/cli.md, every command's --help (a test fails when it drifts).
docs:
	UPDATE_DOCS=1 $(CARGO) test --release --locked --features fault-injection --test it docs::cli_reference

# Regenerate schemas/<table>.json from the code (then review the diff).
schemas:
	UPDATE_SCHEMAS=1 $(CARGO) test --release --locked --features fault-injection --test it schema

clean:
	rm -rf target $(OUT) $(VENV) dist node_modules

# ---- scale-out: the wheel, Java for Spark, the Spark job in local mode ---------------------

# dist/robots_census-<version>-py3-none-<platform>.whl: the binary on PATH (pyproject.toml).
# maturin builds the module (the engine crate, arrow-array, pyo3) in target/release beside the
# binary, which `make build` already made: after it only the module and the stripped binary are new.
wheel: venv
	rm -f dist/robots_census-*.whl
	$(CARGO) build --release --locked --bin robots-census
	rm -rf target/wheel-data && mkdir -p target/wheel-data/scripts
	strip -o target/wheel-data/scripts/robots-census target/release/robots-census
	$(VENV)/bin/maturin build --release --locked --out dist

# Java 17 for pyspark, from Debian, when there is no java.
java:
	@command -v java >/dev/null || { \
	  $(BENCH_SUDO) apt-get update -qq && $(BENCH_SUDO) apt-get install -y -qq openjdk-17-jre-headless; }

# The Spark job (spark/robots_census_spark.py) in local mode over the bundled samples,
# the binary shipped with --files as on a cluster: a complete dataset with _SUCCESS in
# $(SPARK_OUT); then the steps after the run, one crawl at a time, as a cluster would run
# them on a machine each. Rerunning it skips the tasks already committed.
SPARK_OUT    ?= spark-out
SPARK_MASTER ?= local[2,3]
SPARK_SUBMIT  = PATH="$(abspath $(VENV))/bin:$$PATH" PYSPARK_PYTHON=$(abspath $(PYTHON)) \
	PYSPARK_DRIVER_PYTHON=$(abspath $(PYTHON)) SPARK_LOCAL_IP=127.0.0.1 \
	$(VENV)/bin/spark-submit --master '$(SPARK_MASTER)' --conf spark.ui.enabled=false \
	  --conf spark.driver.bindAddress=127.0.0.1 --conf spark.driver.host=127.0.0.1 \
	  --conf spark.log.level=WARN --files $(BIN) spark/robots_census_spark.py
# The samples hold two crawls: CC-MAIN-2026-48 and `unknown` (the CSV dump, no crawl id).
spark-demo: build venv java
	$(SPARK_SUBMIT) \
	  data-samples/cc-robotstxt-sample.warc.gz data-samples/IAH-urls-wget.warc.gz data-samples/robots-dump.csv.gz \
	  --urls data-samples/urls.txt --urls-per-host 5 --out $(SPARK_OUT) --quiet
	$(BIN) status $(SPARK_OUT)
	$(BIN) sites $(SPARK_OUT) --crawl CC-MAIN-2026-48 --quiet
	$(BIN) sites $(SPARK_OUT) --crawl unknown --quiet
	$(BIN) changes $(SPARK_OUT) --from CC-MAIN-2026-48 --to unknown

# SCALING.md's local check: 200 Common Crawl-sized inputs (built once into scale-out/ from
# ../shared), one process vs 4 shards one after another and all at once, outputs compared.
scale-check: build venv
	$(PYTHON) scripts/scale_check.py --bin $(BIN) --shared $(SHARED) --work scale-out

# ---- bench: the benchmark harness (see BENCHMARKS.md) ------------------------------------
# `make bench` installs GNU time if missing, creates the venv, builds the inputs from
# ../shared into bench-out/ (once), builds the release binary and the bench programs, runs
# every benchmark and writes bench-out/results.md.

SHARED          ?= ../shared
BENCH_OUT       ?= bench-out
BENCH_REPS      ?= 3
BENCH_RESPONSES ?= 100000
# The crawl slice: CRAWL_INPUTS Common Crawl-like files of CRAWL_CAPTURES captures each.
CRAWL_INPUTS    ?= 1000
CRAWL_CAPTURES  ?= 1200
CRAWL_REPS      ?= 1
# The regression guard (scripts/bench_guard.py): this build against BENCH_BASELINE, the
# previous release (a commit or tag; move it forward when a release lands), built the
# same way in the same run; a configuration that executes more than BENCH_GUARD_MAX
# times the baseline's instructions on the same file fails `make bench`.
BENCH_BASELINE  ?= 3478ea6
BENCH_GUARD_MAX ?= 1.04
# The sites and changes steps (steps `sites`, `changes`) on generated crawls of these
# many captures (each size's crawls are made once into $(BENCH_OUT)).
BENCH_SITES_SIZES ?= 2000000,10000000
BENCH_CHANGES_SIZES ?= 2000000,10000000
# Steps of scripts/bench.py to run (e.g. BENCH_ONLY=guard).
BENCH_ONLY      ?= parse,verdicts,python,e2e,guard,crawl,query
# apt-get needs root; use sudo when not root.
BENCH_SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: bench bench-tools bench-inputs bench-clean

bench: export PYTHONDONTWRITEBYTECODE = 1
bench: bench-tools venv bench-inputs wheel
	$(PYTHON) scripts/bench.py --out $(BENCH_OUT) --shared $(SHARED) --reps $(BENCH_REPS) \
	  --crawl-reps $(CRAWL_REPS) --baseline $(BENCH_BASELINE) --guard-max $(BENCH_GUARD_MAX) \
	  --sites-sizes $(BENCH_SITES_SIZES) --changes-captures $(BENCH_CHANGES_SIZES) --only $(BENCH_ONLY)

# GNU time (peak RSS via `/usr/bin/time -v`), gzip (the decompression baseline) and
# valgrind (the guard's instruction counts).
bench-tools:
	@test -x /usr/bin/time && command -v gzip >/dev/null && command -v valgrind >/dev/null || { \
	  $(BENCH_SUDO) apt-get update -qq && $(BENCH_SUDO) apt-get install -y -qq time gzip valgrind; }

bench-inputs: $(BENCH_OUT)/corpus.json $(BENCH_OUT)/hostile-bomb.warc.gz \
  $(BENCH_OUT)/crawl-slice/slice-$(CRAWL_INPUTS)x$(CRAWL_CAPTURES).done

# Rebuilt when its size changes (the stamp names it) or its generator does.
$(BENCH_OUT)/crawl-slice/slice-$(CRAWL_INPUTS)x$(CRAWL_CAPTURES).done: scripts/make_crawl_slice.py \
  scripts/make_bench_corpus.py scripts/bench_common.py | venv
	rm -rf $(BENCH_OUT)/crawl-slice $(BENCH_OUT)/crawl-slice-all.warc.gz
	$(PYTHON) scripts/make_crawl_slice.py --shared $(SHARED) --out $(BENCH_OUT) \
	  --inputs $(CRAWL_INPUTS) --captures $(CRAWL_CAPTURES)
	touch $@

$(BENCH_OUT)/corpus.json: scripts/make_bench_corpus.py scripts/bench_common.py | venv
	$(PYTHON) scripts/make_bench_corpus.py --shared $(SHARED) --out $(BENCH_OUT) \
	  --responses $(BENCH_RESPONSES)

$(BENCH_OUT)/hostile-bomb.warc.gz: scripts/make_hostile_inputs.py scripts/bench_common.py | venv
	$(PYTHON) scripts/make_hostile_inputs.py --out $(BENCH_OUT)

bench-clean:
	rm -rf $(BENCH_OUT)

# ---- fuzz-inputs: mutation fuzz of the input readers (scripts/fuzz_inputs.py) -------------
# Damaged copies of the WARC / CSV samples (../shared/corpus/warc, data-samples/, synthetic
# files, and copies compressed here as a whole and per record) are run through the release
# binary with a time and memory limit each; every intact record must come out, the manifest
# accounting must hold, and every input problem must name a byte of the file inside its
# record's member or frame. FUZZ_MUTANTS mutants of each seed kind (plain, gzip, gzip-whole,
# zstd, zstd-whole); it needs the zstd command. Failing mutants are kept in
# $(FUZZ_OUT)/failing/, counts in $(FUZZ_OUT)/summary.json.

FUZZ_MUTANTS ?= 600
FUZZ_SEED    ?= 10
FUZZ_OUT     ?= fuzz-out

.PHONY: fuzz-inputs

fuzz-inputs: export PYTHONDONTWRITEBYTECODE = 1
fuzz-inputs: venv build
	$(PYTHON) scripts/fuzz_inputs.py --bin $(BIN) --shared $(SHARED) --samples data-samples \
	  --count $(FUZZ_MUTANTS) --per-kind --seed $(FUZZ_SEED) --out $(FUZZ_OUT)
