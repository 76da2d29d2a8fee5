#!/usr/bin/env bash
# The straggler test's rules on nodes that differ (trial 19d): a node that ran fewer threads is
# compared per benchmark and named (#4); an injected slowdown is named beside its flag (#7);
# --mad-floor 0 flags a node below a fleet of identical ones (#9); a rank whose environment
# changes what is measured (NODESCALE_GEMM_KC) is refused, named by node (#6, #17); a node's host
# is its data's (#10); the settings line says the data carry their own (#13). Nodes are fixtures.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/mpi.sh
fx=$fixtures

# 4. node 3 ran 1 thread (ids /t1), every rate halved: not compared with the 2-thread nodes;
#    7. node 3 recorded an injected slowdown;
#    9. --mad-floor 0 over 3 identical nodes and one at half: flagged, the true reason.
mkdir -p "$tmp/thr" "$tmp/mad"
# Copies of one node under other host names (a node's own results twice are refused).
for r in 0 1 2; do
  jq --arg h "copy-$r" '.context.host = $h' "$fx/node0.json" >"$tmp/thr/n$r.json"
  cp "$tmp/thr/n$r.json" "$tmp/mad/n$r.json"
done
jq '.results[] |= (.id |= sub("/t2"; "/t1") | .threads = 1
    | if .gflops then .gflops /= 2 else . end | if .gbytes_per_s then .gbytes_per_s /= 2 else . end)' \
  "$fx/node0.json" >"$tmp/thr/n3.json"
jq '.results[] |= (if .gflops then .gflops /= 2 else . end | if .gbytes_per_s then .gbytes_per_s /= 2 else . end)
    | .context.env = {"NODESCALE_INJECT_SLOWDOWN": "stream_triad:1.0"}' \
  "$fx/node0.json" >"$tmp/mad/n3.json"
fleet4 thrs "$tmp/thr/n%r.json" --fail-on-straggler
rc=$?
[ $rc -eq 0 ] || fail "threads: exit $rc, want 0 (a thread count is no straggler)"
jq -e '(.warnings[0] | test("different thread counts.*'"$host"'-r3 \\(1\\)"))
       and (.stragglers.flagged | length == 0)
       and any(.benchmarks[]; .id == "stream_triad/avx512/dp/t2/n=4194304" and .nodes_measured == 3 and .tested)
       and any(.benchmarks[]; .id == "stream_triad/avx512/dp/t1/n=4194304" and (.tested | not)
               and .status == "not tested (different thread counts)")' \
  "$tmp/thrs/fleet.json" >/dev/null || fail "threads: node 3 z-scored across thread counts, or not named"
fleet4 madf "$tmp/mad/n%r.json" --mad-floor 0 --fail-on-straggler
[ $? -eq 1 ] || fail "mad-floor 0: exit status"
jq -e '.stragglers.flagged[0].name == "'"$host"'-r3"
       and all(.benchmarks[]; .tested and .nodes_measured == 4)
       and (.nodes[3].warning | test("NODESCALE_INJECT_SLOWDOWN=stream_triad:1.0: deliberately injected"))' \
  "$tmp/madf/fleet.json" >/dev/null || fail "mad-floor 0 / injection: fleet.json"
grep -q 'warning\*\* for '"$host"'-r3: recorded with NODESCALE_INJECT_SLOWDOWN' "$tmp/madf/report.md" ||
  fail "injection: report.md does not name it beside the flag"
grep -q 'fewer than 3\|at least 3 nodes' "$tmp/madf/report.md" "$tmp/madf/fleet.json" &&
  fail "mad-floor 0: the false 'fewer than 3 nodes' reason"
# 10. one host per node: the data's (as in stragglers.flagged), the rank's as mpi_host;
# 13. the settings line says the data carry their own.
jq -e '.nodes[3].host == "fixture-a" and .nodes[3].host == .stragglers.flagged[0].host
       and .nodes[3].mpi_host == "'"$host"'" and .nodes[3].cpus_recorded == null' \
  "$tmp/madf/fleet.json" >/dev/null ||
  fail "hosts: $(jq -c '[.nodes[3], .stragglers.flagged[0].host]' "$tmp/madf/fleet.json")"
# report.md's CPUs bound cell: what the data recorded (the fixtures: nothing), not this rank's.
grep -q "^| $host-r3 | fixture-a | 3 | ok | .* | n/a | " "$tmp/madf/report.md" ||
  fail "report.md CPUs bound: $(grep "^| $host-r3 " "$tmp/madf/report.md")"
grep -q '^- settings of this command .*measured with their own' "$tmp/madf/report.md" ||
  fail "--from-results: the settings line claims the command's settings for the data"

# 6. NODESCALE_GEMM_KC on rank 1 only: refused, the variable named.
c=(--quick --ranks-per-node 2 --no-collectives --from-results "$fx/node%r.json" --out "$tmp/env")
timeout -k 2 60 $MPIRUN -np 1 $bin fleet "${c[@]}" : -np 1 -x NODESCALE_GEMM_KC=16 $bin fleet "${c[@]}" \
  >"$tmp/env.out" 2>"$tmp/env.err"
jq -e '.nodes[1].status == "refused"
       and .nodes[1].reason == "settings differ: NODESCALE_GEMM_KC=16 here, NODESCALE_GEMM_KC unset on rank 0"' \
  "$tmp/env/fleet.json" >/dev/null || fail "env: rank 1 not refused: $(jq -c .nodes[1] "$tmp/env/fleet.json")"
grep -q "rank 1 ($host-r1) refused: settings differ" "$tmp/env.err" || fail "env: refusal not named by node (#17)"

# 7. A long variable (a large node's OMP_PLACES) before the one that differs: the whole settings
#    are compared, rank 1 refused.
pad=$(printf 'x%.0s' $(seq 2100))
c=(--quick --ranks-per-node 2 --no-collectives --from-results "$fx/node%r.json" --out "$tmp/long")
timeout -k 2 60 $MPIRUN -np 1 -x GOMP_PAD="$pad" -x OMP_WAIT_POLICY=passive $bin fleet "${c[@]}" : \
  -np 1 -x GOMP_PAD="$pad" -x OMP_WAIT_POLICY=active $bin fleet "${c[@]}" >"$tmp/long.out" 2>"$tmp/long.err"
rc=$?
[ $rc -eq 1 ] || fail "long settings: exit $rc, want 1 (rank 1 refused)"
jq -e '.nodes[1].status == "refused" and .nodes[1].reason ==
       "settings differ: OMP_WAIT_POLICY=active here, OMP_WAIT_POLICY=passive on rank 0"' \
  "$tmp/long/fleet.json" >/dev/null || fail "long settings: $(jq -c .nodes[1] "$tmp/long/fleet.json")"

[ $fails -eq 0 ] && echo "fleet_straggler_rules: ok"
[ $fails -eq 0 ]
