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

# Waiting on a process by its progress, not by the clock (a sleep before a signal raced on a
# loaded machine): each waits up to 60 s of wall time and returns 1 when the process ended first
# or the time ran out.
# wait_caught PID: until PID catches SIGINT, i.e. has installed nodescale's stop handler (a
# signal before that ends it at once, or is lost: a background job starts with SIGINT ignored).
wait_caught() {
  local i mask
  for i in $(seq 600); do
    mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
    [ -n "$mask" ] || return 1
    (((0x$mask >> 1) & 1)) && return 0
    sleep 0.1
  done
  return 1
}
# wait_cpu PID SECONDS: until PID (all its threads) has used SECONDS of CPU time: as far into
# its work as SECONDS of wall time take it on an idle machine, however loaded this one is.
wait_cpu() {
  local i ticks hz want
  hz=$(getconf CLK_TCK)
  want=$(awk -v s="$2" -v hz="$hz" 'BEGIN { printf "%d", s * hz + 0.5 }')
  for i in $(seq 600); do
    # utime and stime: fields 14 and 15, counted after the ")" that ends the command name
    ticks=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }')
    [ -n "$ticks" ] || return 1
    [ "$ticks" -ge "$want" ] && return 0
    sleep 0.1
  done
  return 1
}
# wait_for FILE PATTERN: until a line of FILE matches the grep -E PATTERN (60 s).
wait_for() {
  local i
  for i in $(seq 600); do
    grep -Eq -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
