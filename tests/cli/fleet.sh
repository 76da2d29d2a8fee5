#!/usr/bin/env bash
# `mpirun -np 2|3 nodescale fleet` on localhost, nodes read from the synthetic fixtures
# (tests/fixtures/fleet, not measurements) so the test is fast and its stragglers known:
# the folder layout, fleet.json (nodes, stragglers, collectives with busbw, allreduce.fit),
# report.md, --fail-on-straggler's exit status, idle ranks under --ranks-per-node, usage errors.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/mpi.sh
common=(--quick --max-bytes 256KiB --from-results "$fixtures/node%r.json")

# 1. two ranks, both measuring: complete, collectives over 2 ranks, α–β fit present.
timeout -k 2 120 $MPIRUN -np 2 $bin fleet "${common[@]}" --ranks-per-node 2 --out "$tmp/a" \
  >"$tmp/a.out" 2>"$tmp/a.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: np 2 exit $rc"; tail -n 20 "$tmp/a.err"; fails=$((fails + 1)); }
for f in fleet.json report.md "nodes/$host-r0/results.json" "nodes/$host-r1/results.json" \
  "nodes/$host-r0/run.log" "nodes/$host-r1/run.log"; do
  [ -s "$tmp/a/$f" ] || { echo "FAIL: np 2: $f missing"; fails=$((fails + 1)); }
done
jq -e '.schema == "nodescale/1" and .kind == "fleet" and .status == "complete"
       and .node_counts.ok == 2 and .collectives.ranks == 2
       and (.collectives.allreduce | length) >= 10
       and all(.collectives[("allreduce","reduce_scatter","allgather")][];
               .validated and .busbw_gbytes_per_s > 0 and .time_s.min <= .time_s.max)
       and (.allreduce.fit.alpha_s >= 0) and (.allreduce.fit.beta_s_per_byte > 0) and .allreduce.fit.ranks == 2
       and (.collectives.busbw_convention | test("2\\(n-1\\)/n"))' "$tmp/a/fleet.json" >/dev/null ||
  { echo "FAIL: np 2 fleet.json content"; fails=$((fails + 1)); }
# busbw = algbw * 2(n-1)/n = algbw for n = 2 (all-reduce), algbw / 2 for all-gather.
# (fleet.json holds 10 significant digits: compare relatively.)
jq -e 'def near(a; b): ((a - b) | fabs) <= 1e-8 * (b | fabs);
       all(.collectives.allreduce[]; near(.busbw_gbytes_per_s; .algbw_gbytes_per_s))
       and all(.collectives.allgather[]; near(.busbw_gbytes_per_s * 2; .algbw_gbytes_per_s))' \
  "$tmp/a/fleet.json" >/dev/null || { echo "FAIL: busbw factors"; fails=$((fails + 1)); }
grep -q 'All-reduce α–β fit' "$tmp/a/report.md" || { echo "FAIL: report lacks the fit"; fails=$((fails + 1)); }
grep -q 'Not tested:.* 2 node(s)' "$tmp/a/report.md" || { echo "FAIL: report: straggler section"; fails=$((fails + 1)); }
ls "$tmp/a" | grep -q '\.tmp' && { echo "FAIL: temporary files left"; fails=$((fails + 1)); }
# Each node's run.log ends with its outcome, as the console printed it.
for r in 0 1; do
  [ "$(tail -n 1 "$tmp/a/nodes/$host-r$r/run.log")" = "nodescale fleet: rank $r ($host-r$r): ok" ] ||
    { echo "FAIL: nodes/$host-r$r/run.log does not end with its outcome"; fails=$((fails + 1)); }
done

# 2. three ranks, rank 2 slow on stream and reduce: named with those benchmarks; exit 0 without
#    --fail-on-straggler, 1 with it.
timeout -k 2 120 $MPIRUN -np 3 $bin fleet "${common[@]}" --ranks-per-node 3 --out "$tmp/b" \
  >"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: np 3 exit $rc"; tail -n 20 "$tmp/b.err"; fails=$((fails + 1)); }
jq -e --arg n "$host-r2" '.stragglers.flagged_nodes == 1 and .stragglers.flagged[0].name == $n
       and ([.stragglers.flagged[0].benchmarks[].id] | sort ==
            ["reduce_dot/avx512/dp/t2/n=4194304","reduce_sum/avx512/dp/t2/n=4194304",
             "stream_copy/avx512/dp/t2/n=4194304","stream_triad/avx512/dp/t2/n=4194304"])
       and .collectives.ranks == 3' "$tmp/b/fleet.json" >/dev/null ||
  { echo "FAIL: np 3 straggler not named with its benchmarks"; fails=$((fails + 1)); }
grep -q "1 straggler node(s):\*\* $host-r2" "$tmp/b/report.md" ||
  { echo "FAIL: report does not name the straggler"; fails=$((fails + 1)); }
timeout -k 2 120 $MPIRUN -np 3 $bin fleet "${common[@]}" --ranks-per-node 3 --no-collectives \
  --fail-on-straggler --out "$tmp/c" >"$tmp/c.out" 2>"$tmp/c.err"
rc=$?
[ $rc -eq 1 ] || { echo "FAIL: --fail-on-straggler exit $rc, want 1"; fails=$((fails + 1)); }
grep -q 'straggler node(s) flagged' "$tmp/c.err" || { echo "FAIL: no straggler message"; fails=$((fails + 1)); }

# 3. default --ranks-per-node 1 on one host: rank 1 idles (one node), then joins the collectives.
timeout -k 2 120 $MPIRUN -np 2 $bin fleet "${common[@]}" --out "$tmp/d" >"$tmp/d.out" 2>"$tmp/d.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: rpn 1 exit $rc"; tail -n 20 "$tmp/d.err"; fails=$((fails + 1)); }
jq -e --arg h "$host" '.node_counts.ok == 1 and .node_counts.idle == 1 and .nodes[0].name == $h
       and .collectives.ranks == 2 and .allreduce.fit.ranks == 2
       and .allreduce.fit.beta_s_per_byte > 0' "$tmp/d/fleet.json" >/dev/null ||
  { echo "FAIL: rpn 1 roles"; fails=$((fails + 1)); }
[ -s "$tmp/d/nodes/$host/run.log" ] || { echo "FAIL: rpn 1: nodes/$host/run.log missing"; fails=$((fails + 1)); }
# mpirun binds ranks to one core when -np <= 2: the rank meant to own the node says so when it
# measures; with --from-results it measures nothing and says nothing. The measuring
# rank ends right after the handshake (NODESCALE_FLEET_FAULT=0:die), fleet.json written.
if [ "$(nproc)" -gt 1 ]; then
  jq -e '.nodes[0].warning == null and .nodes[0].cpus_allowed < .nodes[0].cpus_online' \
    "$tmp/d/fleet.json" >/dev/null && ! grep -q 'launcher bound' "$tmp/d.err" ||
    { echo "FAIL: --from-results warned about the launcher's binding"; fails=$((fails + 1)); }
  NODESCALE_FLEET_FAULT=0:die timeout -k 2 60 $MPIRUN -np 1 $bin fleet --quick --no-collectives \
    --out "$tmp/w" >/dev/null 2>&1
  jq -e '.nodes[0].warning | test("--bind-to none")' "$tmp/w/fleet.json" >/dev/null ||
    { echo "FAIL: no warning about the launcher's binding"; fails=$((fails + 1)); }
  NODESCALE_FLEET_FAULT=0:die timeout -k 2 60 $MPIRUN -np 1 --bind-to none $bin fleet --quick \
    --no-collectives --out "$tmp/e" >/dev/null 2>&1
  jq -e '.nodes[0].warning == null and .nodes[0].cpus_allowed == .nodes[0].cpus_online' \
    "$tmp/e/fleet.json" >/dev/null || { echo "FAIL: --bind-to none still warned"; fails=$((fails + 1)); }
fi

# 3b. no rank characterised (results files missing): exit 1 and the status is not "complete".
timeout -k 2 60 $MPIRUN -np 2 $bin fleet --quick --ranks-per-node 2 --no-collectives \
  --from-results "$tmp/none%r.json" --out "$tmp/none" >"$tmp/none.out" 2>"$tmp/none.err"
rc=$?
[ $rc -eq 1 ] || { echo "FAIL: no results: exit $rc, want 1"; fails=$((fails + 1)); }
grep -q '0 of 2 ranks characterised.*status failed' "$tmp/none.out" ||
  { echo "FAIL: no results: summary"; cat "$tmp/none.out"; fails=$((fails + 1)); }
jq -e '.node_counts.ok == 0 and (.status | startswith("failed"))' "$tmp/none/fleet.json" \
  >/dev/null || { echo "FAIL: no results: fleet.json status"; fails=$((fails + 1)); }
grep -q 'status: \*\*failed' "$tmp/none/report.md" || { echo "FAIL: no results: report.md"; fails=$((fails + 1)); }
# A node that failed has its folder and run.log, with the reason.
for r in 0 1; do
  grep -q "^nodescale fleet: rank $r ($host-r$r): failed: .*none$r.json" "$tmp/none/nodes/$host-r$r/run.log" ||
    { echo "FAIL: no results: nodes/$host-r$r/run.log lacks the failure"; fails=$((fails + 1)); }
done

# 4. usage errors: exit 2, one line, nothing launched.
# (an empty --from-results exited 1, an unknown --kernels name was accepted)
for args in "--timeout-s abc" "--ranks-per-node 0" "--bogus" "--max-bytes 1x" "--out" \
  "--from-results=" "--kernels nosuch" "--kernels dgemm"; do
  $bin fleet $args >"$tmp/u.out" 2>"$tmp/u.err"
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/u.err")" -eq 1 ] && grep -q '^nodescale fleet: error: ' "$tmp/u.err" ||
    { echo "FAIL: fleet $args: exit $rc"; cat "$tmp/u.err"; fails=$((fails + 1)); }
done
# More ranks per node than any node runs: refused before anything is written.
timeout -k 2 60 $MPIRUN -np 1 $bin fleet "${common[@]}" --ranks-per-node 2 --no-collectives \
  --out "$tmp/rpn" >/dev/null 2>"$tmp/rpn.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'error: --ranks-per-node 2, but no node runs more than 1 rank' "$tmp/rpn.err" &&
  [ ! -e "$tmp/rpn" ] || { echo "FAIL: --ranks-per-node 2 with -np 1: exit $rc"; fails=$((fails + 1)); }
$bin fleet --help | grep -q 'mpirun -np N nodescale fleet' || { echo "FAIL: --help"; fails=$((fails + 1)); }

[ $fails -eq 0 ] && echo "fleet: ok"
exit $((fails > 0))
