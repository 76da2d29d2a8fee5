# Sourced by tests/cli scripts after `cd` to the repository root: skips (exit 77, reason on the
# last line) when the binary is missing, or jq when the script sets need_jq=1 first; sets ns
# (bin/nodescale, or $NS_BIN to run the checks on another build; an absolute path), tmp
# (removed on exit), fails=0 and fail MESSAGE (prints it and counts it). The other libraries
# here source it first: one binary, one temporary folder and one failure count for all.
ns=${NS_BIN:-bin/nodescale}
[ -x "$ns" ] || { echo "skip: $ns not built"; exit 77; }
ns=$(cd "$(dirname "$ns")" && pwd)/$(basename "$ns")
if [ "${need_jq:-0}" = 1 ]; then
  command -v jq >/dev/null || { echo "skip: jq not installed (scripts/install-deps.sh)"; exit 77; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
