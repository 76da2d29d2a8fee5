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
  [ $rc -eq 1 ] || { echo "FAIL: --from-results $kind report: exit $rc, want 1"; fails=$((fails + 1)); }
  grep -q "rank 0 ($host): failed: .*a $kind report, not a node's results.json" "$tmp/err" ||
    { echo "FAIL: --from-results $kind report: no reason:"; cat "$tmp/err"; fails=$((fails + 1)); }
  jq -e --arg k "$kind" '.node_counts.ok == 0 and .nodes[0].status == "failed" and
      (.nodes[0].reason | contains("a " + $k + " report"))' "$d/fleet.json" >/dev/null ||
    { echo "FAIL: --from-results $kind report: fleet.json"; jq -c '.nodes' "$d/fleet.json"; fails=$((fails + 1)); }
  [ -e "$d/nodes/$host/results.json" ] && { echo "FAIL: $kind report copied as a node's results"; fails=$((fails + 1)); }
  # The refusal named the path twice ("read F: F: a fleet report").
  [ "$(grep -o -F "$f" "$tmp/err" | wc -l)" -eq "$(grep -c -F "$f" "$tmp/err")" ] &&
    ! grep -q -F "$f: $f" "$tmp/err" ||
    { echo "FAIL: --from-results $kind report: a line names the path twice:"; cat "$tmp/err"; fails=$((fails + 1)); }
done
# A `nodescale bench` file (one result, no ceilings or roofline) ran as "rank 0:
# ok"; the rank fails with that one reason, as `cluster --node` refuses it.
jq '.results |= .[:1] | del(.sweep, .ceilings, .roofline)' "$fixtures/node0.json" >"$tmp/bench.json"
timeout -k 2 60 $MPIRUN -np 1 $bin fleet --from-results "$tmp/bench.json" --no-collectives \
  --out "$tmp/b" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || { echo "FAIL: --from-results bench file: exit $rc, want 1"; fails=$((fails + 1)); }
grep -q "rank 0 ($host): failed: .*bench.json: a .nodescale bench. result" "$tmp/err" ||
  { echo "FAIL: --from-results bench file: no reason:"; cat "$tmp/err"; fails=$((fails + 1)); }
jq -e '.node_counts.ok == 0 and .nodes[0].status == "failed" and
    (.nodes[0].reason | contains("nodescale bench"))' "$tmp/b/fleet.json" >/dev/null ||
  { echo "FAIL: --from-results bench file: fleet.json"; jq -c '.nodes' "$tmp/b/fleet.json"; fails=$((fails + 1)); }
# A file with an empty "results" array: "holds no results", not "a bench result".
echo '{"schema":"nodescale/1","context":{},"results":[]}' >"$tmp/empty.json"
timeout -k 2 60 $MPIRUN -np 1 $bin fleet --from-results "$tmp/empty.json" --no-collectives \
  --out "$tmp/e" >"$tmp/out" 2>"$tmp/err"
grep -q "rank 0 ($host): failed: .*empty.json: holds no results" "$tmp/err" ||
  { echo "FAIL: --from-results empty results: reason:"; cat "$tmp/err"; fails=$((fails + 1)); }
# A node's results.json is still taken.
timeout -k 2 60 $MPIRUN -np 1 $bin fleet --from-results "$fixtures/node0.json" --no-collectives \
  --out "$tmp/ok" >/dev/null 2>&1 || { echo "FAIL: a node's results refused"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "fleet_report_input: ok"
exit $((fails > 0))
