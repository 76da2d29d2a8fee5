#!/usr/bin/env bash
# Trial 14b #7: `fleet --from-results` took any "nodescale/1" document as a node's results: a
# fleet.json ran as "rank 0: ok" (its 48 benchmarks became the node's, and nodes/<node>/
# results.json a copy of the fleet report), a compare.json too. Each is a report, not a node's
# results: the rank fails with that reason, and a fleet with no rank characterised exits 1.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/mpi.sh
for f in examples/providers/fleet-localhost/fleet.json examples/providers/compare/compare.json; do
  kind=$(jq -r .kind "$f")
  d="$tmp/$kind"
  timeout -k 2 60 $MPIRUN -np 1 $bin fleet --from-results "$f" --no-collectives --out "$d" \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 1 ] || { echo "FAIL: --from-results $kind report: exit $rc, want 1"; fail=1; }
  grep -q "rank 0 ($host): failed: .*a $kind report, not a node's results.json" "$tmp/err" ||
    { echo "FAIL: --from-results $kind report: no reason:"; cat "$tmp/err"; fail=1; }
  jq -e --arg k "$kind" '.node_counts.ok == 0 and .nodes[0].status == "failed" and
      (.nodes[0].reason | contains("a " + $k + " report"))' "$d/fleet.json" >/dev/null ||
    { echo "FAIL: --from-results $kind report: fleet.json"; jq -c '.nodes' "$d/fleet.json"; fail=1; }
  [ -e "$d/nodes/$host/results.json" ] && { echo "FAIL: $kind report copied as a node's results"; fail=1; }
done
# A node's results.json is still taken.
timeout -k 2 60 $MPIRUN -np 1 $bin fleet --from-results "$fixtures/node0.json" --no-collectives \
  --out "$tmp/ok" >/dev/null 2>&1 || { echo "FAIL: a node's results refused"; fail=1; }
[ $fail -eq 0 ] && echo "fleet_report_input: ok"
exit $fail
