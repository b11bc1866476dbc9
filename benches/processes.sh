#!/usr/bin/env bash
# Whole processes on one file, side by side: cctape stats, cctape filter,
# jq, a python json.loads loop and wc -l. Medians from hyperfine.
#
#   benches/processes.sh FILE [RUNS]
#
# Needs hyperfine, jq and python3. Builds cctape in release mode first.
set -euo pipefail
file=${1:?usage: benches/processes.sh FILE [RUNS]}
runs=${2:-5}
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/cctape
py='import json,sys
n=0
for line in open(sys.argv[1], "rb"):
    if json.loads(line).get("type") == "result":
        n += 1
print(n)'
out=$(mktemp)
hyperfine --warmup 1 --runs "$runs" -N --export-json "$out" \
  -n "wc -l" "wc -l $file" \
  -n "cctape stats (1 job)" "$bin stats -q -j 1 $file" \
  -n "cctape stats (2 jobs)" "$bin stats -q -j 2 $file" \
  -n "cctape filter --type result" "$bin filter -q -j 1 --type result $file" \
  -n "cctape filter --trust --type result" "$bin filter -q -j 1 --trust --type result $file" \
  -n "jq -c select(.type==\"result\")" "jq -c 'select(.type==\"result\")' $file" \
  -n "python json.loads loop" "python3 -c '$py' $file" >/dev/null
bytes=$(stat -c %s "$file")
python3 - "$out" "$bytes" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
size = int(sys.argv[2])
rows = [(r["command"], sorted(r["times"])[len(r["times"]) // 2]) for r in data["results"]]
jq = next(t for c, t in rows if c.startswith("jq"))
py = next(t for c, t in rows if c.startswith("python"))
print(f"| command | median s | MB/s | x jq | x python |")
print("|---|---:|---:|---:|---:|")
for c, t in rows:
    print(f"| `{c}` | {t:.3f} | {size / t / 1e6:,.0f} | {jq / t:.1f} | {py / t:.1f} |")
PY
rm -f "$out"
