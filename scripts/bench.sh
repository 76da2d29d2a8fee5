#!/usr/bin/env bash
# make bench / make bench-NAME: runs bin/bench/bench_NAME (or every one for "all").
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
if [ "$what" = all ]; then
  for b in bin/bench/bench_*; do [ -x "$b" ] && "$b"; done
else
  b=bin/bench/bench_$what
  [ -x "$b" ] || { echo "nodescale: no benchmark '$what' (have: $(ls bin/bench 2>/dev/null | sed 's/bench_//' | tr '\n' ' '))" >&2; exit 2; }
  "$b"
fi
