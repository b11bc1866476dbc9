#!/usr/bin/env bash
# The README's screenshot of the shipped corpus's report,
# docs/report-corpus.png: `cctape report corpus --html` rendered by headless
# Chromium (Debian's `chromium`, which .ci/run installs), the window's
# first 1280x1500 pixels. Run it after a change to the page:
#   bash docs/screenshot.sh
# ($CCTAPE_BIN names a built cctape; by default `cargo run` builds one).
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/report-corpus.png
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${CCTAPE_BIN:-}" ]; then
  "$CCTAPE_BIN" report --quiet --timezone UTC corpus --html "$tmp/report.html"
else
  cargo run --quiet -- report --quiet --timezone UTC corpus --html "$tmp/report.html"
fi
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --host-resolver-rules='MAP * ~NOTFOUND' --hide-scrollbars \
  --user-data-dir="$tmp/profile" --window-size=1280,1500 \
  --screenshot="$out" "file://$tmp/report.html" 2>/dev/null
echo "wrote $out ($(wc -c < "$out") bytes)"
