# Sourced by tests/cli/roofline_*.sh that draw: skips (exit 77, reason on the last line) when
# bin/nodescale or gnuplot is missing; sets bin, fixture (the synthetic results, not a
# measurement), tmp (removed on exit) and fail=0.
bin=bin/nodescale
fixture=tests/fixtures/roofline/synthetic_results.json
[ -x "$bin" ] || { echo "skip: $bin not built"; exit 77; }
command -v gnuplot >/dev/null || { echo "skip: gnuplot not installed (scripts/install-deps.sh)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
