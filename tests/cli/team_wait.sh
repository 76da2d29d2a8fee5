#!/usr/bin/env bash
# Two threads bound to one CPU whose OpenMP wait spins (OMP_WAIT_POLICY=active)
# take turns with the scheduler: the one that finished first holds the CPU spinning while the
# other waits for it, so a sample of short repetitions is mostly waiting (12 ms for 30 us of
# work), and was reported `ok` at 0.17 GFLOP/s. Such a result must be invalid, without a rate,
# with a status that names the remedy (OMP_WAIT_POLICY=passive); with passive waiting the same
# placement measures `ok` (threads sharing a CPU are a warning, not an error).
# --min-time 1e-6: repetitions sized on microseconds of work, so the wait dominates wherever it
# happens. Where it cannot be produced (the passive run's samples are as long as the active
# one's: no waiting dominated), the test skips. Not a speed test: the two runs' times only tell
# whether the condition arose.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh
[ "$(nproc)" -ge 2 ] || { echo "skip: needs 2 CPUs"; exit 77; }
c=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
b() { # OMP_WAIT_POLICY value, json file
    OMP_WAIT_POLICY=$1 OMP_PROC_BIND=close OMP_PLACES="{$c}" "$ns" bench peak_dp_fma --threads 2 \
        --samples 9 --min-time 1e-6 --json "$2" >"$tmp/out" 2>"$tmp/err"
}

b passive "$tmp/p.json" || fail "passive waiting on one CPU: exit $?: $(cat "$tmp/out" "$tmp/err")"
[ "$(jq -r '.results[0].status' "$tmp/p.json")" = ok ] ||
    fail "passive waiting on one CPU: status '$(jq -r '.results[0].status' "$tmp/p.json")', want ok"

b active "$tmp/a.json"
rc=$?
st=$(jq -r '.results[0].status' "$tmp/a.json")
case $st in
"invalid: samples lasted "*"x the threads' work: threads on CPU $c waited for it while a spinning OpenMP wait held it; set OMP_WAIT_POLICY=passive")
    [ $rc -eq 1 ] || fail "waiting team: exit $rc, want 1"
    [ "$(jq -r '.results[0].gflops' "$tmp/a.json")" = null ] || fail "waiting team: a rate"
    [ "$(jq -r '.results[0].placement_warning | startswith("threads 0 and 1 both ran on CPU")' \
        "$tmp/a.json")" = true ] || fail "waiting team: no placement_warning"
    grep -qF "no rate  [invalid: samples lasted" "$tmp/out" || fail "summary line: $(cat "$tmp/out")"
    ;;
ok)
    # Not classified as waiting: fine only if the samples were not mostly waiting.
    ma=$(jq -r '.results[0].time_s.median' "$tmp/a.json")
    mp=$(jq -r '.results[0].time_s.median' "$tmp/p.json")
    if python3 -c "import sys; a, p = map(float, sys.argv[1:]); sys.exit(not a > 4 * p)" "$ma" "$mp"; then
        fail "active waiting: status ok, yet a repetition took $ma s against $mp s with passive waiting"
    else
        [ $fails -eq 0 ] || exit 1
        echo "skip: the threads did not wait for the CPU ($ma s per repetition, $mp s passive)"
        exit 77
    fi
    ;;
*) fail "active waiting on one CPU: status '$st'" ;;
esac
[ $fails -eq 0 ] && echo "ok: a team waiting for its shared CPU is invalid and names OMP_WAIT_POLICY=passive"
exit $((fails > 0))
