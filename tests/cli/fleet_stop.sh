#!/usr/bin/env bash
# A fleet that is stopped keeps what it gathered (trial 19d):
#   #2 SIGTERM to every rank (scancel, a batch time limit): each stops at its next sample and
#      sends what finished; rank 0 writes fleet.json ("interrupted") and report.md, exit 143;
#      in the collectives every rank stops before the next size;
#   #3 rank 0 hangs in its own characterisation: its watchdog (--timeout-s) ends the job and
#      rank 1's results, which had reached it, are written.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/mpi.sh

# 2. a real (short) measurement, both ranks signalled once measuring has started.
$MPIRUN -np 2 $bin fleet --quick --ranks-per-node 2 --threads 1 --kernels stream_triad \
  --no-collectives --out "$tmp/sig" >"$tmp/sig.out" 2>"$tmp/sig.err" &
mp=$!
wait_for "$tmp/sig.err" 'ceiling ' || fail "stop: measuring never started"
pids=$(pgrep -P $mp)
[ "$(echo $pids | wc -w)" = 2 ] || fail "stop: want the 2 rank processes, got '$pids'"
for p in $pids; do wait_caught "$p" || fail "stop: rank $p has no stop handler"; done
kill -TERM $pids
( sleep 60; kill -KILL $mp 2>/dev/null ) & guard=$!
wait $mp
rc=$?
kill $guard 2>/dev/null
[ $rc -eq 143 ] || fail "stop: exit $rc, want 143"
jq -e '.status == "interrupted" and ([.nodes[] | .status] == ["ok", "ok"])
       and all(.nodes[]; .interrupted)' "$tmp/sig/fleet.json" >/dev/null ||
  fail "stop: fleet.json $(jq -c '[.status, [.nodes[].status]]' "$tmp/sig/fleet.json")"
[ -s "$tmp/sig/report.md" ] || fail "stop: no report.md"
for r in 0 1; do
  jq -e '.interrupted == true' "$tmp/sig/nodes/$host-r$r/results.json" >/dev/null ||
    fail "stop: rank $r's results not written as interrupted"
done

# 2b. the same in the collectives (default sizes, to 256 MiB): they stop between sizes on every
#     rank, the finished sizes kept.
$MPIRUN -np 2 $bin fleet --ranks-per-node 2 --from-results "$fixtures/node%r.json" \
  --out "$tmp/sigc" >"$tmp/sigc.out" 2>"$tmp/sigc.err" &
mp=$!
wait_for "$tmp/sigc.err" 'allreduce over' || fail "stop in collectives: they never started"
kill -TERM $(pgrep -P $mp)
( sleep 60; kill -KILL $mp 2>/dev/null ) & guard=$!
wait $mp
rc=$?
kill $guard 2>/dev/null
[ $rc -eq 143 ] || fail "stop in collectives: exit $rc, want 143"
jq -e '.status == "interrupted" and .node_counts.ok == 2 and (.collectives.allgather | length) < 26' \
  "$tmp/sigc/fleet.json" >/dev/null || fail "stop in collectives: fleet.json $(jq -c .status "$tmp/sigc/fleet.json")"

# 3. rank 0 hangs; --timeout-s 3: the job ends, rank 1's results are on disk.
NODESCALE_FLEET_FAULT=0:hang timeout -k 2 40 $MPIRUN -np 2 $bin fleet --quick --ranks-per-node 2 \
  --no-collectives --timeout-s 3 --from-results "$fixtures/node%r.json" --out "$tmp/h0" \
  >"$tmp/h0.out" 2>"$tmp/h0.err"
rc=$?
case $rc in 1|139) ;; *) fail "rank 0 hang: exit $rc, want 1"; tail -n 5 "$tmp/h0.err" ;; esac
jq -e '.nodes[0].status == "failed" and (.nodes[0].reason | test("rank 0.*did not finish within --timeout-s 3"))
       and .nodes[1].status == "ok" and (.status | startswith("incomplete"))' "$tmp/h0/fleet.json" >/dev/null ||
  fail "rank 0 hang: fleet.json $(jq -c '[.status, [.nodes[].status]]' "$tmp/h0/fleet.json")"
[ -s "$tmp/h0/nodes/$host-r1/results.json" ] || fail "rank 0 hang: rank 1's results lost"
[ -s "$tmp/h0/report.md" ] || fail "rank 0 hang: no report.md"
grep -q "rank 0 hung or was slow; the results are in" "$tmp/h0.err" ||
  fail "rank 0 hang: the closing line: $(grep "results are in" "$tmp/h0.err")"

[ $fails -eq 0 ] && echo "fleet_stop: ok"
[ $fails -eq 0 ]
