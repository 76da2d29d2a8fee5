# Sourced by tests/cli/roofline_*.sh that draw: common.sh, then a skip (exit 77, reason on the
# last line) when gnuplot is missing; sets bin (= ns) and fixture (the synthetic results, not a
# measurement).
. tests/cli/lib/common.sh
command -v gnuplot >/dev/null || { echo "skip: gnuplot not installed (scripts/install-deps.sh)"; exit 77; }
bin=$ns
fixture=tests/fixtures/roofline/synthetic_results.json
