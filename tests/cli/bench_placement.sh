#!/usr/bin/env bash
# Thread placement is checked, not just recorded: bound threads that share a CPU
# (OMP_PROC_BIND=master) get a placement_warning in the result and a warning on stderr, while the
# status stays "ok" (a valid measurement of the placement asked for; gate, compare and the
# roofline keep it), and context.affinity records what the OpenMP runtime made of OMP_PROC_BIND/OMP_PLACES:
# a value it rejected ("Invalid value") is named, not recorded as in force.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh
[ "$(nproc)" -ge 2 ] || { echo "skip: needs 2 CPUs"; exit 77; }
b() { "$ns" bench stream_triad --n 4096 --samples 3 --threads 2 --json "$tmp/r.json" "$@"; }

OMP_PROC_BIND=master OMP_PLACES=cores b >"$tmp/out" 2>"$tmp/err"
rc=$?
st=$(jq -r '.results[0].status' "$tmp/r.json")
[ "$st" = ok ] || fail "OMP_PROC_BIND=master: status '$st', want ok"
pw=$(jq -r '.results[0].placement_warning' "$tmp/r.json")
case $pw in "threads 0 and 1 both ran on CPU "*", CPU "*" idle") ;;
    *) fail "OMP_PROC_BIND=master: placement_warning '$pw', want 'threads 0 and 1 both ran on CPU ..., ... idle'" ;; esac
[ $rc -eq 0 ] || fail "OMP_PROC_BIND=master: exit $rc, want 0"
grep -q "warning: thread placement: threads 0 and 1 both ran on CPU" "$tmp/err" ||
    fail "OMP_PROC_BIND=master: no warning on stderr: $(cat "$tmp/err")"
[ "$(jq -r '.context.affinity.proc_bind_in_effect' "$tmp/r.json")" = primary ] ||
    fail "OMP_PROC_BIND=master: proc_bind_in_effect is not primary"

for e in OMP_PROC_BIND=bogus OMP_PLACES=bogus; do
    env "$e" "$ns" bench stream_triad --n 4096 --samples 3 --threads 2 --json "$tmp/r.json" \
        >/dev/null 2>&1 || fail "$e: bench failed"
    pl=$(jq -r '.context.affinity.placement' "$tmp/r.json")
    case $pl in *"ignored ${e%%=*}='bogus'"*) ;; *) fail "$e: placement '$pl' does not say it was ignored" ;; esac
    [ "$(jq -r '.context.affinity.proc_bind_in_effect' "$tmp/r.json")" = false ] ||
        fail "$e: proc_bind_in_effect is not false"
done

OMP_PROC_BIND=close OMP_PLACES=cores b >/dev/null 2>"$tmp/err" || fail "OMP_PROC_BIND=close: bench failed"
[ "$(jq -r '.results[0].status' "$tmp/r.json")" = ok ] || fail "OMP_PROC_BIND=close: status not ok"
[ "$(jq -r '.context.affinity.placement' "$tmp/r.json")" = "from the user's environment" ] ||
    fail "OMP_PROC_BIND=close: placement '$(jq -r '.context.affinity.placement' "$tmp/r.json")'"
! grep -q "warning: thread placement" "$tmp/err" || fail "OMP_PROC_BIND=close: a placement warning"
[ $fails -eq 0 ] && echo "ok: shared CPUs recorded and warned; rejected OMP values named"
exit $((fails > 0))
