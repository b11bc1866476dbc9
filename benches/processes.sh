#!/usr/bin/env bash
# Whole processes side by side, one run, the same input, the same cores:
# cctape stats and cctape filter --total (validated classification; one count over every input) against
# jq, a python json.loads loop and DuckDB (the python `duckdb` package)
# counting events by type/subtype, with 1 and 2 jobs. Medians from
# hyperfine, then the ratios issue 14's targets use.
#
#   benches/processes.sh [--runs N] [--warmup N] [--jobs "1 2"] INPUT...
#
# INPUT is a file or a directory (every file under it, as cctape reads it).
# Each peer first runs once and must give the oracle's counts (the python
# loop's: events and `result` events; cctape stats its by_type, filter its
# count); a peer that is missing or disagrees is left out with a message,
# never timed. jq and DuckDB read strictly; on an input with lines that are
# not JSON (a harness archive) they fall back to their lenient forms
# (`jq -R 'fromjson?'`, `ignore_errors=true`), and the table says so.
#
# Jobs: cctape -j N, DuckDB `SET threads=N`; jq and python are one thread
# and run with 1 job only. Cores: commands with N jobs are pinned with
# taskset to the first N CPUs of $CPUS (default: every CPU, highest first,
# so 1 job runs on the last one).
#
# Needs hyperfine and python3; jq and duckdb are optional. Builds cctape in
# release mode first.
set -euo pipefail

runs=5
warmup=1
jobs_list="1 2"
usage="usage: benches/processes.sh [--runs N] [--warmup N] [--jobs \"1 2\"] INPUT..."
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=${2:?$usage}; shift 2 ;;
    --warmup) warmup=${2:?$usage}; shift 2 ;;
    --jobs) jobs_list=${2:?$usage}; shift 2 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    --) shift; break ;;
    -*) echo "unknown option $1" >&2; echo "$usage" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }

command -v hyperfine >/dev/null || { echo "processes.sh: hyperfine is needed" >&2; exit 1; }
command -v python3 >/dev/null || { echo "processes.sh: python3 is needed (oracle and tables)" >&2; exit 1; }

inputs=()
for i in "$@"; do
  [ -e "$i" ] || { echo "processes.sh: no such input: $i" >&2; exit 2; }
  inputs+=("$(realpath "$i")")
done

cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/cctape

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The python loop (benches/typecount.py), also the oracle.
cp benches/typecount.py "$tmp/loop.py"

# DuckDB counting by type/subtype: THREADS FILELIST MODE (strict|lenient).
cat >"$tmp/duck.py" <<'PY'
import json, sys
import duckdb
threads, listfile, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
files = open(listfile).read().splitlines()
con = duckdb.connect()
con.execute(f"SET threads={threads}")
con.execute("SET enable_progress_bar=false")
paths = "[" + ",".join("'" + p.replace("'", "''") + "'" for p in files) + "]"
extra = ", ignore_errors=true" if mode == "lenient" else ""
q = (f"SELECT type, subtype, count(*) FROM read_json({paths}, format='newline_delimited', "
     f"columns={{type:'VARCHAR', subtype:'VARCHAR'}}{extra}) GROUP BY ALL")
counts = {}
for t, st, n in con.execute(q).fetchall():
    if t is None:
        continue
    k = t + "/" + st if st is not None and t in ("system", "result") else t
    counts[k] = counts.get(k, 0) + n
print(json.dumps(counts, sort_keys=True))
PY

# Events and results in a peer's answer: a by-type JSON object (loop,
# DuckDB, jq, cctape stats --json's by_type) or a bare count (filter).
cat >"$tmp/counts.py" <<'PY'
import json, sys
d = json.loads(sys.stdin.read())
if isinstance(d, int):
    print("-", d)
else:
    d = d.get("by_type", d) if "by_type" in d else d
    print(sum(d.values()), sum(v for k, v in d.items() if k == "result" or k.startswith("result/")))
PY

us=$'\x1f'
jq_count='as $e ({}; .[$e.type + (if ($e.type == "system" or $e.type == "result")
  and ($e.subtype | type) == "string" then "/" + $e.subtype else "" end)] += 1)'
jq_prog="reduce (inputs | objects | select(.type | type == \"string\")) $jq_count"
jq_lenient="reduce (inputs | fromjson? | objects | select(.type | type == \"string\")) $jq_count"

all_cpus=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0), reverse=True))))')
read -r -a cpu_arr <<<"${CPUS:-$all_cpus}"
pin() { # pin N: the taskset prefix for N jobs
  local n=$1
  if ! command -v taskset >/dev/null; then return; fi
  if [ "$n" -gt "${#cpu_arr[@]}" ]; then return; fi
  local list
  list=$(IFS=,; echo "${cpu_arr[*]:0:$n}")
  echo "taskset -c $list "
}

have_jq=1; command -v jq >/dev/null || { have_jq=0; echo "processes.sh: jq not found, left out"; }
have_duck=1; python3 -c 'import duckdb' 2>/dev/null || { have_duck=0; echo "processes.sh: python package duckdb not found, left out"; }

for input in "${inputs[@]}"; do
  list="$tmp/files.txt"
  if [ -d "$input" ]; then
    find "$input" -type f | LC_ALL=C sort >"$list"
  else
    echo "$input" >"$list"
  fi
  nfiles=$(wc -l <"$list")
  bytes=$(tr '\n' '\0' <"$list" | xargs -0 stat -c %s | awk '{s+=$1} END {print s+0}')
  files_args=$(tr '\n' ' ' <"$list")
  echo
  echo "## $input ($nfiles files, $bytes bytes)"
  echo

  want=$(python3 "$tmp/loop.py" "$list" | python3 "$tmp/counts.py")
  read -r want_events want_results <<<"$want"
  echo "oracle (python loop): $want_events events, $want_results results"

  # name US jobs US command (US: the unit separator): checked, then timed.
  cmds=()
  check() { # check NAME JOBS KIND CMD...: run once, compare with the oracle
    local name=$1 jobs=$2 kind=$3; shift 3
    local out got_events got_results status=0
    out=$("$@" 2>/dev/null) || status=$?
    if [ "$status" != 0 ]; then
      echo "  $name: exit status $status, left out"
      return 1
    fi
    read -r got_events got_results <<<"$(python3 "$tmp/counts.py" <<<"$out")"
    if [ "$got_results" != "$want_results" ] || { [ "$kind" = events ] && [ "$got_events" != "$want_events" ]; }; then
      echo "  $name: $got_events events, $got_results results; left out"
      return 1
    fi
    return 0
  }
  for j in $jobs_list; do
    if [ "$j" -gt "${#cpu_arr[@]}" ]; then
      echo "  skipped: $j jobs (only ${#cpu_arr[@]} CPUs)"
      continue
    fi
    p=$(pin "$j")
    if check "cctape filter --total" "$j" results $p "$bin" filter -q --total --type result -j "$j" "$input"; then
      cmds+=("cctape filter --total --type result${us}$j${us}$p$bin filter -q --total --type result -j $j $input")
    fi
    if check "cctape stats" "$j" events $p "$bin" stats -q --json -j "$j" "$input"; then
      cmds+=("cctape stats${us}$j${us}$p$bin stats -q -j $j $input")
    fi
    if [ $have_duck = 1 ]; then
      if check "DuckDB (strict)" "$j" events $p python3 "$tmp/duck.py" "$j" "$list" strict; then
        cmds+=("DuckDB read_json by type/subtype${us}$j${us}${p}python3 $tmp/duck.py $j $list strict")
      elif check "DuckDB ignore_errors" "$j" events $p python3 "$tmp/duck.py" "$j" "$list" lenient; then
        cmds+=("DuckDB read_json by type/subtype (ignore_errors)${us}$j${us}${p}python3 $tmp/duck.py $j $list lenient")
      fi
    fi
    if [ "$j" = 1 ]; then
      if [ $have_jq = 1 ]; then
        # shellcheck disable=SC2086
        if check "jq (strict)" 1 events $p jq -n "$jq_prog" $files_args; then
          printf '%s\n' "$jq_prog" >"$tmp/prog.jq"
          cmds+=("jq reduce by type/subtype${us}1${us}${p}jq -n -f $tmp/prog.jq $files_args")
        else
          # shellcheck disable=SC2086
          # Lines read as text, each parsed if it can be. `awk 1` ends
          # every file with a LF: jq joins the files' text, and a last line
          # cut short would swallow the next file's first line.
          printf '%s\n' "$jq_lenient" >"$tmp/prog_r.jq"
          # shellcheck disable=SC2086
          if check "jq -R fromjson?" 1 events $p sh -c "awk 1 \"\$@\" | jq -nR -f $tmp/prog_r.jq" sh $files_args; then
            cmds+=("awk 1 | jq -R fromjson? reduce by type/subtype${us}1${us}${p}sh -c 'awk 1 \"\$@\" | jq -nR -f $tmp/prog_r.jq' sh $files_args")
          fi
        fi
      fi
      cmds+=("python json.loads loop${us}1${us}${p}python3 $tmp/loop.py $list")
    fi
  done

  hf=()
  for c in "${cmds[@]}"; do
    IFS=$us read -r name j cmd <<<"$c"
    hf+=(-n "$name|$j" "$cmd")
  done
  hyperfine --warmup "$warmup" --runs "$runs" -N --style none --export-json "$tmp/out.json" "${hf[@]}" >/dev/null

  python3 - "$tmp/out.json" "$bytes" <<'PY'
import json, statistics, sys
data = json.load(open(sys.argv[1]))
size = int(sys.argv[2])
rows = []
for r in data["results"]:
    name, jobs = r["command"].rsplit("|", 1)
    rows.append((name, int(jobs), statistics.median(r["times"])))
t = {(n, j): s for n, j, s in rows}
def find(word, j):
    return next((s for (n, jj), s in t.items() if word in n and jj == j), None)
jq, py = find("jq", 1), find("python", 1)
print("| command | jobs | median s | MB/s | x jq | x python | x DuckDB (same jobs) |")
print("|---|--:|--:|--:|--:|--:|--:|")
for n, j, s in rows:
    duck = find("DuckDB", j)
    ratio = lambda ref: f"{ref / s:.1f}" if ref else "-"
    print(f"| `{n}` | {j} | {s:.3f} | {size / s / 1e6:,.0f} | {ratio(jq)} | {ratio(py)} | {ratio(duck)} |")
print()
s1, s2 = find("cctape stats", 1), find("cctape stats", 2)
f1 = find("cctape filter", 1)
if s1 and f1:
    print(f"- stats / validated classification, 1 job: {f1 / s1:.0%} (filter --total {f1:.3f} s, stats {s1:.3f} s; target >= 80%)")
if s1 and s2:
    print(f"- stats, 2 jobs over 1 job: {s1 / s2:.2f}x (target >= 1.8x)")
for j, s in ((1, s1), (2, s2)):
    if not s:
        continue
    parts = []
    for label, ref in (("jq", jq), ("python", py), ("DuckDB", find("DuckDB", j))):
        if ref:
            parts.append(f"{ref / s:.1f}x {label}")
    if parts:
        print(f"- stats, {j} job{'s' if j > 1 else ''}: " + ", ".join(parts))
PY
done
