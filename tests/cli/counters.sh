#!/usr/bin/env bash
# Counters as a user sees them: results.json says which backend, whether
# hardware events are available and why not; every counter that could not be read is null with a
# status (never 0, never "<not supported>"); software events and the clock probe are there for
# every kernel; a malformed NODESCALE_EVENTS is a usage error (exit 2, one line).
# Skips (77) until `nodescale bench` writes context.counters.
set -u
cd "$(dirname "$0")/../.."
ns=bin/nodescale
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

command -v jq >/dev/null || { echo "skip: jq not installed"; exit 77; }
[ -x $ns ] || { echo "FAIL: $ns not built"; exit 1; }
if ! $ns bench stream_triad --n 65536 --threads 2 --min-time 0.001 --json "$tmp/r.json" \
    >"$tmp/out" 2>"$tmp/err"; then
  fail "nodescale bench failed: $(tail -n 3 "$tmp/err")"; exit 1
fi
if [ "$(jq '.context | has("counters")' "$tmp/r.json")" != true ]; then
  echo "skip: nodescale bench does not write context.counters yet (ns_counters_context_json)"
  exit 77
fi
j() { jq -r "$1" "$tmp/r.json"; }

[ "$(j '.context.counters.available | type')" = boolean ] || fail "available is not a boolean"
status=$(j '.context.counters.status')
[ -n "$status" ] && [ "$status" != null ] || fail "context.counters.status missing"
if [ "$(j '.context.counters.available')" = false ]; then
  [ "$(j '.context.counters.backend')" = none ] || fail "backend should be none"
  case $status in ok*) fail "unavailable but status '$status'" ;; esac
  # Nothing counted may look like data.
  n=$(j '[.results[].counters.events[]? | select(.value != null)] | length')
  [ "$n" = 0 ] || fail "$n hardware values present although counters are unavailable"
fi
echo "context.counters.status: $status"
grep -q 'not supported>' "$tmp/r.json" && fail "literal <not supported> in results.json"

# Every value null-or-non-negative, every null with a status.
bad=$(j '[.results[].counters | (.events[]?, .software_events[]?, (.derived // {} | .[]))
          | select((.value == null and (.status | type) != "string")
                   or (.value != null and .value < 0))] | length')
[ "$bad" = 0 ] || fail "$bad counter entries negative or null without a status"

# Software events for every kernel where the machine has them: the task clock always.
nres=$(j '.results | length')
ntc=$(j '[.results[].counters.software_events[]? | select(.name == "perf::TASK-CLOCK"
          and .value != null and .value > 0)] | length')
[ "$ntc" = "$nres" ] || fail "task clock present in $ntc of $nres results"

# The clock probe, where the lead records it.
if [ "$(j '.context | has("clock_probe")')" = true ]; then
  ghz=$(j '.context.clock_probe.before_ghz')
  [ "$ghz" != null ] && awk "BEGIN{exit !($ghz > 0.2 && $ghz < 10)}" ||
    fail "clock probe before_ghz = $ghz"
fi

# A malformed event list is a usage error, not a silent default.
NODESCALE_EVENTS="PAPI_TOT_CYC,,PAPI_TOT_INS" $ns bench stream_triad --n 4096 --threads 1 \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
{ [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; } ||
  fail "bad NODESCALE_EVENTS: rc=$rc, stderr: $(cat "$tmp/err")"

[ $fails -eq 0 ] && echo "ok: counters in results.json"
[ $fails -eq 0 ]
