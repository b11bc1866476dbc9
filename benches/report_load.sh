#!/usr/bin/env bash
# How large `cctape report --html` is, how long it takes to make, and how
# long a browser takes to load it, for a corpus of harness runs:
#   bash benches/report_load.sh DIR [RUNS]
# DIR is made with examples/gencorpus/ when missing:
#   gencorpus --profile harness --bytes 1G --files 10500 --seed 7 --out DIR
# (10,500 files: about 10,000 runs, the rest text, empty or CLI errors).
# The binary is target/profiling/cctape (`cargo build --profile profiling`),
# or $CCTAPE_BIN. Load time: headless Chromium opens a page that holds the
# report in an iframe and notes, in its title, the milliseconds from its own
# start to the iframe's load event (the report parsed, styled and laid out,
# its SVG included); five runs, each with a new profile, their median
# printed; beside it the whole `chromium --screenshot` of the report
# against that of an empty page.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: benches/report_load.sh DIR}
bin=${CCTAPE_BIN:-target/profiling/cctape}
if [ ! -d "$dir" ]; then
  cargo run --profile profiling --example gencorpus -- --profile harness \
    --bytes 1G --files 10500 --seed 7 --out "$dir"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
page=$tmp/report.html
/usr/bin/time -f '%e s wall, %M KiB max RSS' "$bin" report --quiet --timezone UTC \
  "$dir" --html "$page" 2> "$tmp/time" || true
echo "report: $(wc -c < "$page") bytes; made in $(tail -1 "$tmp/time")"
"$bin" stats --json "$dir" 2>/dev/null | python3 -c \
  'import json,sys; d=json.load(sys.stdin); print("runs:", d["runs"], "failed:", d["runs"]-d["verdicts"]["success"])'
cat > "$tmp/wrap.html" <<'HTML'
<!DOCTYPE html><html><head><title>-</title></head><body>
<script>const t0 = performance.now();</script>
<iframe src="report.html" style="width:1280px;height:2000px"
 onload="document.title = 'loaded ' + Math.round(performance.now() - t0) + ' ms'"></iframe>
</body></html>
HTML
echo '<!DOCTYPE html><title>empty</title>' > "$tmp/empty.html"
chrome() {
  local profile
  profile=$(mktemp -d -p "$tmp")
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir="$profile" \
    --window-size=1280,2000 "$@" 2>/dev/null
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for _ in 1 2 3 4 5; do
  chrome --dump-dom "file://$tmp/wrap.html" | grep -o 'loaded [0-9]* ms' | grep -o '[0-9]*'
done | median | sed 's/^/load event of the report (median of 5): /; s/$/ ms/'
for f in report empty; do
  for _ in 1 2 3 4 5; do
    s=$(date +%s%N)
    chrome --screenshot="$tmp/$f.png" "file://$tmp/$f.html" > /dev/null
    echo $(( ($(date +%s%N) - s) / 1000000 ))
  done | median | sed "s/^/chromium --screenshot of the $f page (median of 5): /; s/\$/ ms/"
done
