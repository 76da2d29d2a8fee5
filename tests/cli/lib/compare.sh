# Sourced by tests/cli/compare_*.sh: skips (exit 77, reason on the last line) when the binary or
# jq is missing; sets bin (bin/nodescale, or $NS_BIN to run the checks on another build), fx (the
# synthetic provider fixtures, not measurements), tmp (removed on exit) and fail=0.
bin=${NS_BIN:-bin/nodescale}
[ -x "$bin" ] || { echo "skip: $bin not built"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed (scripts/install-deps.sh)"; exit 77; }
fx=tests/fixtures/fleet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
