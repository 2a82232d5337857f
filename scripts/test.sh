#!/usr/bin/env bash
# `make test` after its installs: lints, docs and the wheel, then every test.
#
# Why a script: the oracles' answers (Google's parser, urllib, protego and robots-parser
# asked the differential questions about every corpus body: tests/oracle/) cost about
# 9 CPU-minutes (520 s measured on the 2-core VM) and need no build. They start here
# first, at the lowest priority, and fill the cores the builds leave idle (clippy's and
# rustdoc's single-crate passes, the last minutes of the release build: the crate
# itself, then linking; the test build). The tests then read the files through
# ROBOTS_CENSUS_ANSWERS / ROBOTS_CENSUS_PROFILE_ANSWERS instead of asking the libraries
# themselves. Same questions, same libraries, same assertions; `cargo test` alone still
# runs the oracles in the test process.
#
# Usage: scripts/test.sh PYTHON SHARED MAKE CARGO
set -euo pipefail
python=$1 shared=$2 make=$3 cargo=$4
oracles=target/oracles
rm -rf "$oracles" && mkdir -p "$oracles"

started=$(date +%s)
# Job control on: each oracle job is a process group of its own (the shell, Python's
# worker processes, node), which stop_oracles can end as a whole.
set -m
{
  nice -n 19 "$python" tests/oracle/answers.py "$shared" "$oracles/answers.jsonl" &&
    echo "done $(($(date +%s) - started)) s after the start"
} >"$oracles/answers.log" 2>&1 &
google=$!
{
  nice -n 19 "$python" tests/oracle/profile_answers.py "$shared" "$oracles/python.jsonl" &&
    NODE_PATH="$PWD/node_modules" nice -n 19 node tests/oracle/robots_parser_answers.js "$shared" \
      "$oracles/python.jsonl" "$oracles/profiles.jsonl" &&
    echo "done $(($(date +%s) - started)) s after the start"
} >"$oracles/profiles.log" 2>&1 &
profiles=$!
set +m
# A failed lint or build must not leave the oracles running.
stop_oracles() {
  kill -TERM -- "-$google" "-$profiles" 2>/dev/null || true
}
trap stop_oracles EXIT

"$make" clippy doc wheel
# The test binaries too: their build leaves a core idle most of the time as well. The
# engine crate's unit tests, proptests and doc tests run beside the tool's.
tests=("$cargo" test --release --locked -p robots-census -p robots-census-engine
  --features fault-injection,external-tests)
"${tests[@]}" --no-run
built=$(date +%s)

for job in "google:$google:answers" "profiles:$profiles:profiles"; do
  IFS=: read -r name pid log <<<"$job"
  if ! wait "$pid"; then
    echo "scripts/test.sh: the $name oracle failed; its output ($oracles/$log.log):" >&2
    cat "$oracles/$log.log" >&2
    exit 1
  fi
done
trap - EXIT
echo "scripts/test.sh: lints, docs, wheel and test build took $((built - started)) s; then waited" \
  "$(($(date +%s) - built)) s for the oracles (google: $(tail -n1 "$oracles/answers.log")," \
  "profiles: $(tail -n1 "$oracles/profiles.log"))" >&2

ROBOTS_CENSUS_PYTHON="$python" \
  ROBOTS_CENSUS_ANSWERS="$PWD/$oracles/answers.jsonl" \
  ROBOTS_CENSUS_PROFILE_ANSWERS="$PWD/$oracles/profiles.jsonl" \
  "${tests[@]}"
