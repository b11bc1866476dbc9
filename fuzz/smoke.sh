#!/usr/bin/env bash
# Run every fuzz target briefly: a smoke test for CI.
#
#   bash fuzz/smoke.sh [SECONDS_PER_TARGET]     # default 60
#
# Installs cargo-fuzz if it is missing, seeds the corpus if it is empty
# (fuzz/seed.sh), and fails if any target finds a crash. A crash leaves its
# input in fuzz/artifacts/<target>/; turn it into a regression test as
# fuzz/README.md says.
set -euo pipefail

secs=${1:-60}
fuzz_dir=$(cd "$(dirname "$0")" && pwd)
cd "$fuzz_dir"
export RUSTC_BOOTSTRAP=1
# Under the project's target/, so that CI's cache of target/ keeps the
# sanitizer build and the cargo-fuzz binary between runs.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR_FUZZ:-$fuzz_dir/../target/fuzz}"
tools="$fuzz_dir/../target/tools"
export PATH="$tools/bin:$PATH"

command -v cargo-fuzz >/dev/null || cargo install --locked --root "$tools" cargo-fuzz
[ -d corpus/parse_line ] && [ -n "$(ls -A corpus/parse_line)" ] || bash ./seed.sh

# A smoke replays at most this many inputs of a target's corpus before its
# seconds of fuzzing: every k-th file by name, copied apart. The seeded
# corpora of the line targets hold every real line (48,000 and more), and
# replaying them under ASan took 7 of the smoke's 10 minutes (index_value
# alone 4); a long run (README.md) starts from the whole corpus.
inputs=${CCTAPE_FUZZ_SMOKE_INPUTS:-2000}
sample_dir="$fuzz_dir/../target/fuzz-smoke"

targets=(framing parse_line chunked truncate events_arbitrary views run_fold stats_path scan_line decompress index_value transcript_fold prefix chunk_reader one_reader mapped)
cargo fuzz build -O
status=0
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  dir="corpus/$t"
  n=$(find "$dir" -maxdepth 1 -type f | wc -l)
  if [ "$n" -gt "$inputs" ]; then
    dir="$sample_dir/$t"
    rm -rf "$dir"
    mkdir -p "$dir"
    step=$(((n + inputs - 1) / inputs))
    find "corpus/$t" -maxdepth 1 -type f | LC_ALL=C sort | awk -v s="$step" 'NR % s == 1' |
      xargs -r cp -t "$dir"
  fi
  log=$(mktemp)
  if cargo fuzz run -O "$t" "$dir" -- -max_total_time="$secs" -dict=dict/stream-json.dict \
      -rss_limit_mb=4096 -print_final_stats=1 >"$log" 2>&1; then
    echo "fuzz smoke $t: ok, $(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)"
  else
    echo "fuzz smoke $t: FAILED"
    grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$log" | tail -n 40
    status=1
  fi
  rm -f "$log"
done
exit $status
