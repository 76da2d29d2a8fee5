#!/usr/bin/env bash
# `mpirun -np 2 nodescale fleet --quick` measuring for real (a small kernel set; GEMM always runs), default
# --ranks-per-node 1 on one host: the measuring rank runs with the CPUs it is bound to (never
# 0 threads), its results carry the roof (usable by `cluster --node`), the idle rank joins the
# MPI collectives (an all-reduce fit over 2 ranks, usable by `cluster --allreduce` as the
# scale-up road, refused as the scale-out one), and the
# report's settings line shows meanings, not internal 0 / -1.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/mpi.sh

# timeout(1) only ends a hang: past fleet --quick's own 600 s wait for results (this took 36 s
# under two busy loops, 177 s with more load: 300 s was too near).
timeout -k 2 700 $MPIRUN -np 2 $bin fleet --quick --kernels stream_triad --max-bytes 64KiB \
  --out "$tmp/f" >"$tmp/f.out" 2>"$tmp/f.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; tail -n 20 "$tmp/f.err"; exit 1; }
res="$tmp/f/nodes/$host/results.json"
[ -s "$res" ] || { echo "FAIL: $res missing"; ls -R "$tmp/f"; exit 1; }
jq -e '.context.threads >= 1
       and ([.. | objects | select(has("threads")) | .threads] | length > 0 and all(. >= 1))
       and ([.. | objects | .id? | strings | select(test("/t0/"))] | length == 0)
       and ([.results[] | select(.family == "gemm") | .fraction_of_roof] | any(. > 0))
       and (.roofline | type == "object")' "$res" >/dev/null ||
  { echo "FAIL: node results: threads 0, /t0/ ids or no roof"; jq -c '.context.threads' "$res"; fails=$((fails + 1)); }
grep -q ': 0 threads' "$tmp/f.err" && { echo "FAIL: the run log says 0 threads"; fails=$((fails + 1)); }
$bin cluster --node "$res" >"$tmp/c.out" 2>"$tmp/c.err" ||
  { echo "FAIL: cluster --node refused the node results"; cat "$tmp/c.err"; fails=$((fails + 1)); }

jq -e '.node_counts.ok == 1 and .node_counts.idle == 1 and .collectives.ranks == 2
       and (.allreduce.fit.alpha_s | type == "number") and .allreduce.fit.alpha_s >= 0
       and (.allreduce.fit.beta_s_per_byte | type == "number") and .allreduce.fit.beta_s_per_byte > 0
       and .allreduce.fit.ranks == 2' "$tmp/f/fleet.json" >/dev/null ||
  { echo "FAIL: no all-reduce fit over the 2 ranks"; jq -c '.allreduce' "$tmp/f/fleet.json"; fails=$((fails + 1)); }
# Both ranks ran on this one host: their fit measured shared memory, so `cluster` refuses it as
# the scale-out network (exit 2) and takes it as the scale-up road when told so.
$bin cluster --preset h200 --allreduce "$tmp/f/fleet.json" >"$tmp/c1.out" 2>"$tmp/c1.err"
[ $? -eq 2 ] && grep -q 'shared memory' "$tmp/c1.err" ||
  { echo "FAIL: a one-host fleet's fit taken as the scale-out network"; cat "$tmp/c1.err"; fails=$((fails + 1)); }
$bin cluster --preset h200 --allreduce "$tmp/f/fleet.json" --allreduce-road scaleup \
  --allreduce-accept-poor-fit >"$tmp/c2.out" 2>"$tmp/c2.err" ||
  { echo "FAIL: cluster --allreduce --allreduce-road scaleup refused fleet.json"; cat "$tmp/c2.err"; fails=$((fails + 1)); }
grep -q 'Not measured' "$tmp/f/report.md" && { echo "FAIL: report: collectives not measured"; fails=$((fails + 1)); }
grep -E -q 'threads=rank-cpus .* max_bytes=65536 ' "$tmp/f/report.md" ||
  { echo "FAIL: report settings line"; grep settings "$tmp/f/report.md"; fails=$((fails + 1)); }

# Without --max-bytes the settings line gives the default in bytes (--quick: 4 MiB), not -1.
timeout -k 2 60 $MPIRUN -np 1 $bin fleet --quick --no-collectives \
  --from-results "$fixtures/node0.json" --out "$tmp/g" >/dev/null 2>"$tmp/g.err"
grep -q 'threads=rank-cpus .* max_bytes=4194304 ' "$tmp/g/report.md" ||
  { echo "FAIL: report settings line without --max-bytes"; grep settings "$tmp/g/report.md"; fails=$((fails + 1)); }

[ $fails -eq 0 ] && echo "fleet_threads: ok"
exit $((fails > 0))
