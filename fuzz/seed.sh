#!/usr/bin/env bash
# Fill fuzz/corpus/<target>/ with seeds from the crate's corpus/ (if any)
# and ../shared/realworld/ (recursively). The corpus dirs are gitignored.
#
#   bash fuzz/seed.sh            # from anywhere inside the repository
#
# Stream targets get files cut to 64 KiB, each behind the parameter bytes
# the target reads first (6 for chunking, 3 more for the cut); parse_line
# and views get single lines up to 64 KiB; run_fold and stats_path (which
# read their input as a generator's script) get the files cut to 64 KiB.
set -euo pipefail

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
crate_dir=$(dirname "$fuzz_dir")
sources=()
for d in "$crate_dir/corpus" "$crate_dir/../shared/realworld"; do
  [ -d "$d" ] && sources+=("$d")
done
if [ ${#sources[@]} -eq 0 ]; then
  echo "seed.sh: no corpus/ and no ../shared/realworld/; nothing to seed" >&2
  exit 1
fi

corpus="$fuzz_dir/corpus"
mkdir -p "$corpus"/{framing,parse_line,chunked,truncate,events_arbitrary,views,run_fold,stats_path,scan_line,decompress,index_value}

max=65536
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  name=$(printf 'seed-%04d' "$n")
  head -c "$max" "$f" > "$corpus/framing/$name"
  # Structure-aware targets read any bytes as a script; real files are a
  # varied start.
  head -c "$max" "$f" > "$corpus/run_fold/$name"
  head -c "$max" "$f" > "$corpus/stats_path/$name"
  # decompress: the first 16 KiB compressed by each tool this machine has,
  # behind the byte the target reads first.
  for tool in gzip zstd xz bzip2 lz4; do
    command -v "$tool" >/dev/null || continue
    { printf '\x00'; head -c 16384 "$f" | "$tool" -c 2>/dev/null; } > "$corpus/decompress/$name-$tool" || true
  done
  { printf '\x07\x2a\x13\x05\x03\x02'; head -c "$max" "$f"; } > "$corpus/chunked/$name"
  { printf '\x07\x2a\x13\x05\x03\x02\x00\x40\x00'; head -c "$max" "$f"; } > "$corpus/truncate/$name"
done < <(find "${sources[@]}" -type f ! -name README.md -print0 | sort -z)

# Single-line seeds, one file per line up to 64 KiB without its LF, named
# <file seed>-l-<line number>. One python3 process writes all of them: a
# shell loop over 27,000 lines took five of CI's minutes.
find "${sources[@]}" -type f ! -name README.md -print0 | sort -z | python3 -c '
import os, sys
corpus, max_len = sys.argv[1], int(sys.argv[2])
names = [p for p in sys.stdin.buffer.read().split(b"\0") if p]
for n, path in enumerate(names, 1):
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for i, line in enumerate(lines):
        if len(line) >= max_len:
            continue
        name = "seed-%04d-l-%06d" % (n, i)
        for target in ("parse_line", "views", "scan_line", "index_value"):
            with open(os.path.join(corpus, target, name), "wb") as out:
                out.write(line)
' "$corpus" "$max"

# A few hand-made seeds for the corners.
printf '\xef\xbb\xbf{"type":"user"}\r\n\n{"type":"result","subtype":"success"}' > "$corpus/framing/bom-crlf"
printf '{"type":"user","t":"a\xe2\x80\xa8b\xe2\x80\xa9c\xc2\x85d\re\x0bf\x0cg"}\n' > "$corpus/framing/separators"
printf '{"type":"user","a":"\\ud83d","n":1e400,"m":-99999999999999999999}' > "$corpus/parse_line/documented"
printf '{"type":"user","type":"assistant"}' > "$corpus/parse_line/dup-type"
cp "$corpus/parse_line/documented" "$corpus/parse_line/dup-type" "$corpus/scan_line/"
cp "$corpus/parse_line/documented" "$corpus/parse_line/dup-type" "$corpus/index_value/"
echo "seed.sh: $n files seeded into $corpus"
for t in "$corpus"/*; do echo "  $(basename "$t"): $(ls "$t" | wc -l) files"; done
