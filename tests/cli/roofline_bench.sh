#!/usr/bin/env bash
# `nodescale roofline` redraws a file written by `bench --json`: no ceilings, and all points at
# one thread count (gnuplot 5.4 crashed on a label clause that matched no point: every such file
# failed with "gnuplot failed"). Both a one-thread and a two-thread file must give pictures.
set -u
cd "$(dirname "$0")/../.."
ns=bin/nodescale
command -v gnuplot >/dev/null || { echo "skip: gnuplot not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
for t in 1 2; do
  $ns bench stream_triad --n 65536 --threads $t --samples 9 --min-time 0.001 --json "$tmp/b$t.json" \
    >/dev/null 2>&1 || { echo "FAIL: bench t$t"; fails=$((fails + 1)); continue; }
  if ! $ns roofline "$tmp/b$t.json" --out "$tmp/r$t" >"$tmp/o$t" 2>&1; then
    echo "FAIL: roofline of a $t-thread bench file: $(tail -1 "$tmp/o$t")"; fails=$((fails + 1))
  elif [ ! -s "$tmp/r$t/roofline_dp.svg" ]; then
    echo "FAIL: no roofline_dp.svg for t$t"; fails=$((fails + 1))
  else
    echo "ok: roofline of a $t-thread bench file"
  fi
done
[ $fails -eq 0 ] || exit 1
