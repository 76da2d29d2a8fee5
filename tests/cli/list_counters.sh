#!/usr/bin/env bash
# `nodescale list` ends as README.md shows: the "counters:" summary line, then one line per
# requested hardware event and per software event with its status (with no PMU, each hardware
# event says it is not counted and why). NODESCALE_EVENTS picks the hardware events listed.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh

NODESCALE_EVENTS=PAPI_TOT_CYC,PAPI_TOT_INS "$ns" list >"$tmp/out" 2>"$tmp/err" || fail "list: exit $?"
block=$(sed -n '/^counters: /,$p' "$tmp/out")
[ -n "$block" ] || fail "list: no 'counters:' summary line"
for ev in PAPI_TOT_CYC PAPI_TOT_INS perf::TASK-CLOCK perf::PAGE-FAULTS perf::CONTEXT-SWITCHES \
          perf::CPU-MIGRATIONS; do
  line=$(printf '%s\n' "$block" | grep -E "^  $ev +[^ ]")
  [ -n "$line" ] || { fail "list: no line for $ev"; continue; }
  if grep -q "^counters: hardware unavailable" <<<"$block" && [[ $ev == PAPI_* ]]; then
    grep -q "not counted: hardware counters unavailable" <<<"$line" ||
      fail "list: $ev line does not say why it is not counted: $line"
  fi
done
[ "$(printf '%s\n' "$block" | wc -l)" -eq 7 ] || fail "list: counters block is not summary + 6 events:
$block"
[ $fails -eq 0 ] && echo "list_counters: ok"
[ $fails -eq 0 ]
