#!/usr/bin/env bash
# What a fleet refuses up front (trial 19d): a --max-bytes whose two collective buffers per rank
# exceed the memory the ranks may allocate (#8: exit 2, nothing written); an --out that is
# another fleet's nodes/ folder or holds a run's folders (#12); an environment error is printed
# once, by rank 0, not once per rank (#11).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/mpi.sh
c=(--quick --ranks-per-node 2 --from-results "$fixtures/node%r.json")

# 8. 2 ranks x 2 x 4 GiB under ulimit -v 3 GB: refused, one line, nothing written.
timeout -k 2 60 $MPIRUN -np 2 bash -c "ulimit -v 3000000; exec $bin fleet ${c[*]} --max-bytes 4GiB --out $tmp/big" \
  >"$tmp/big.out" 2>"$tmp/big.err"
rc=$?
[ $rc -eq 2 ] || fail "max-bytes: exit $rc, want 2"
[ "$(grep -c 'nodescale fleet: error: --max-bytes 4294967296: .* beyond the' "$tmp/big.err")" = 1 ] ||
  fail "max-bytes: want one error line: $(grep error "$tmp/big.err")"
[ -e "$tmp/big" ] && fail "max-bytes: the folder was written"
# 8 GiB is 2^31 floats, beyond MPI's int count: refused up front, not skipped without a word.
$bin fleet --max-bytes 8GiB >"$tmp/m8.out" 2>"$tmp/m8.err"
rc=$?
[ $rc -eq 2 ] && grep -q "error: --max-bytes: '8GiB' is not a size in 8 B..8 GiB - 4 B" "$tmp/m8.err" ||
  fail "max-bytes 8GiB: exit $rc: $(cat "$tmp/m8.err")"

# 12. a fleet, then --out its nodes/ folder, and a folder holding a run's folder: refused.
timeout -k 2 60 $MPIRUN -np 2 $bin fleet "${c[@]}" --no-collectives --out "$tmp/f1" >/dev/null 2>&1 ||
  fail "the first fleet failed"
mkdir -p "$tmp/runs/r1" && cp "$fixtures/node0.json" "$tmp/runs/r1/results.json"
# A new folder inside a fleet's nodes/ folder, or inside a run's folder: refused too.
for out in "$tmp/f1/nodes" "$tmp/runs" "$tmp/f1/nodes/newnode" "$tmp/runs/r1/inner"; do
  timeout -k 2 60 $MPIRUN -np 2 $bin fleet "${c[@]}" --no-collectives --out "$out" \
    >"$tmp/o.out" 2>"$tmp/o.err"
  rc=$?
  [ $rc -eq 2 ] || fail "--out $out: exit $rc, want 2"
  grep -q "nodescale fleet: error: --out '$out' is part of another fleet or holds another run's folder (\(r1/results.json\|a fleet's nodes/ folder, beside .*/f1/fleet.json\|inside .*\))" "$tmp/o.err" ||
    fail "--out $out: message: $(grep error "$tmp/o.err")"
  case $out in */newnode | */inner) [ -e "$out" ] && fail "--out $out: written" ;; esac
done
[ "$(ls "$tmp/f1/nodes")" = "$(printf '%s\n' "$host-r0" "$host-r1")" ] || fail "--out nodes/: written into"

# 11. an environment error: one line from 3 ranks.
timeout -k 2 60 $MPIRUN -np 3 -x NODESCALE_INJECT_SLOWDOWN=nosuch:0.1 $bin fleet --quick \
  --out "$tmp/u1" >"$tmp/u1.out" 2>"$tmp/u1.err"
[ "$(grep -c "error: NODESCALE_INJECT_SLOWDOWN=nosuch:0.1" "$tmp/u1.err")" = 1 ] ||
  fail "env error printed $(grep -c "error: NODESCALE_INJECT" "$tmp/u1.err") times, want 1"

# One results file for every rank (no %r or %h): one node's data counted once, the other ranks
# refused with the reason; different files of one host and date: warned about.
timeout -k 2 60 $MPIRUN -np 3 $bin fleet --quick --ranks-per-node 3 --no-collectives \
  --from-results "$fixtures/node0.json" --out "$tmp/same" >"$tmp/same.out" 2>"$tmp/same.err"
rc=$?
[ $rc -eq 1 ] || fail "same file: exit $rc, want 1"
jq -e '.node_counts.ok == 1 and .node_counts.refused == 2
       and (.nodes[2].reason | test("rank 0.s .*the same document .context.host fixture-a"))' \
  "$tmp/same/fleet.json" >/dev/null || fail "same file: $(jq -c '[.nodes[] | .reason]' "$tmp/same/fleet.json")"
grep -q "rank 1 ($host-r1) refused: its results are rank 0's" "$tmp/same.err" || fail "same file: no message"
jq '.results[0].gflops = 1' "$fixtures/node0.json" >"$tmp/same1.json"
cp "$fixtures/node0.json" "$tmp/same0.json"
timeout -k 2 60 $MPIRUN -np 2 $bin fleet --quick --ranks-per-node 2 --no-collectives \
  --from-results "$tmp/same%r.json" --out "$tmp/samed" >/dev/null 2>"$tmp/samed.err"
grep -q "warning: rank 1 ($host-r1): recorded on the same context.host fixture-a" "$tmp/samed.err" ||
  fail "same host and date: no warning"

# The collectives' progress lines: each operation's own first and last sizes, formatted (3 ranks:
# reduce-scatter and all-gather take multiples of 3 floats, 12 B to 65532 B).
timeout -k 2 60 $MPIRUN -np 3 $bin fleet --quick --ranks-per-node 3 --max-bytes 64KiB \
  --from-results "$fixtures/node%r.json" --out "$tmp/sizes" >/dev/null 2>"$tmp/sizes.err"
grep -q 'allreduce over 3 ranks, 8 B to 64 KiB$' "$tmp/sizes.err" &&
  grep -q 'reduce_scatter over 3 ranks, 12 B to 64 KiB$' "$tmp/sizes.err" &&
  grep -q 'allgather over 3 ranks, 12 B to 64 KiB$' "$tmp/sizes.err" ||
  fail "progress sizes: $(grep ' over 3 ranks' "$tmp/sizes.err")"

# --mad-floor -0 is 0: no "-0" in fleet.json or report.md.
timeout -k 2 60 $MPIRUN -np 1 $bin fleet --quick --no-collectives --mad-floor -0 \
  --from-results "$fixtures/node0.json" --out "$tmp/m0" >/dev/null 2>&1
grep -q -- '-0' <(jq -c .stragglers.mad_floor "$tmp/m0/fleet.json") && fail "--mad-floor -0: fleet.json has -0"
grep -q 'MAD floor -0' "$tmp/m0/report.md" && fail "--mad-floor -0: report.md says -0"
grep -q 'MAD floor 0 ' "$tmp/m0/report.md" || fail "--mad-floor -0: report.md: $(grep 'MAD floor' "$tmp/m0/report.md")"

[ $fails -eq 0 ] && echo "fleet_refusals: ok"
[ $fails -eq 0 ]
