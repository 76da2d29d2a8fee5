#!/usr/bin/env bash
# Roofline, compare and cluster --node took results files that gate refused (two
# results with one id; time_s "fast", samples_s ["a", null], a ceiling of -5 GFLOP/s; 1e308
# values that gave inf in compare.dat and "above the roof by inf%"). One shared check now
# refuses each in every consumer: exit 2, one line naming the file, nothing written.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh
src=tests/fixtures/results_synthetic.json
jq '.results[1].id = .results[0].id' $src >"$tmp/dupid.json"
jq '.results[0].time_s = "fast"' $src >"$tmp/time.json"
jq '.results[0].samples_s = ["a", null]' $src >"$tmp/samples.json"
jq '.ceilings.compute[0].gflops = -5' $src >"$tmp/ceiling.json"
jq '.results[0].gflops = 1e308' $src >"$tmp/huge.json"
jq '(.results[0].time_s.median) = 1e-308' $src >"$tmp/tiny.json"
jq '.results[0].status = 5' $src >"$tmp/status.json"
jq '.results[0].samples_s = [range(1025) | 0.001]' $src >"$tmp/many.json" # trial 7 #13
# A thread count outside 1..NS_MAX_THREADS = 1024 (2^40, 0, 1.5, 1025); #17: a
# sweep point twice (it became a plateau of its own), a curve of more points than a run writes.
sw=tests/fixtures/roofline/synthetic_results.json
jq '.results[].threads = 1099511627776' $src >"$tmp/threadsbig.json"
jq '.results[0].threads = 0' $src >"$tmp/threadszero.json"
jq '.results[0].threads = 1.5' $src >"$tmp/threadsfrac.json"
jq '.results[0].threads = 1025' $src >"$tmp/threads1025.json"
jq '.sweep[3].threads = 0' $sw >"$tmp/sweepthreads.json"
jq '.ceilings.bandwidth[0].threads = 5000' $sw >"$tmp/ceilthreads.json"
jq '.sweep += [.sweep[7]]' $sw >"$tmp/sweepdup.json"
# A copy 1e-6 bytes away passed the exact-text key; a point is keyed on n.
jq '.sweep += [.sweep[3] | .working_set_bytes += 1e-6]' $sw >"$tmp/sweepfrac.json"
jq '.sweep[3].n = 1000 | .sweep += [.sweep[3] | .working_set_bytes = 8001]' $sw >"$tmp/sweepn.json"
jq '.sweep[3].n = 1000.5' $sw >"$tmp/sweepnfrac.json"
jq '.sweep += [range(1100) as $i | .sweep[0] | .working_set_bytes = 1e6 + $i]' $sw \
  >"$tmp/sweeplong.json"
# A cache list the roofline cannot label by: an L2 of 1e15 bytes (larger than the
# L3), an L3 of 0 bytes, an L2 of 512 MiB over a 300 MiB L3, a level that is no level, an L1
# of 512 bytes (below 1 KiB), a cache of 0 instances or shared by 0 cores.
jq '.context.cpu.caches[2].size_bytes = 1e15' $sw >"$tmp/l2huge.json"
jq '.context.cpu.caches[0].size_bytes = 512' $sw >"$tmp/cachesmall.json"
jq '.context.cpu.caches[0].count = 0' $sw >"$tmp/cachecount0.json"
jq '.context.cpu.caches[0].shared_by_cores = 0' $sw >"$tmp/cacheshared0.json"
jq '.context.cpu.caches[3].size_bytes = 0' $sw >"$tmp/l3zero.json"
jq '.context.cpu.caches[2].size_bytes = 536870912' $sw >"$tmp/cacheorder.json"
jq '.context.cpu.caches[0].level = "x"' $sw >"$tmp/cachelevel.json"
for case in l2huge:'caches.2..size_bytes is not a plausible cache size' \
  l3zero:'caches.3..size_bytes is not a plausible cache size' \
  cacheorder:'caches: L3 (314572800 bytes) is not larger than L2 (536870912 bytes)' \
  cachelevel:'caches.0..level is not a cache level' \
  cachesmall:'caches.0..size_bytes is not a plausible cache size .want a whole number of bytes from 1 KiB to 1 TiB.' \
  cachecount0:'caches.0..count is not a whole number of 1 to 1000000' \
  cacheshared0:'caches.0..shared_by_cores is not a whole number of 1 to 1000000' \
  dupid:duplicate time:time_s samples:samples_s ceiling:'gflops = -5 is negative' \
  huge:'not plausible' tiny:'not plausible' status:status many:'1025 samples, more than 1024' \
  threadsbig:'threads = 1.09951e+12 is not a thread count' threadszero:'threads = 0 is not' \
  threadsfrac:'threads = 1.5 is not' threads1025:'threads = 1025 is not' \
  sweepthreads:'sweep.3..threads = 0' \
  ceilthreads:'bandwidth.0..threads = 5000' sweepdup:'sweep.472. repeats sweep.7.' \
  sweeplong:'more than 1024 points' sweepfrac:'sweep.472..working_set_bytes = 8000.* is not a whole' \
  sweepn:'sweep.472. repeats sweep.3. .*threads and n' sweepnfrac:'sweep.3..n = 1000.5 is not a whole'; do
  name=${case%%:*} want=${case#*:}
  for cmd in "roofline $tmp/$name.json --out $tmp/o-$name-r" \
    "compare $tmp/$name.json $src --out $tmp/o-$name-c" "gate $src $tmp/$name.json" \
    "cluster --node $tmp/$name.json --chips 64 --json $tmp/o-$name-k.json"; do
    $ns $cmd >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "$name: ${cmd%% *}: exit $rc, want 2"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "error: .*$name.json.*$want" "$tmp/err" ||
      fail "$name: ${cmd%% *}: stderr: $(head -c 300 "$tmp/err")"
  done
  ls "$tmp" | grep -q "^o-$name" && fail "$name: an output was written"
done
# A fleet's benchmarks[].median of 1e308 (its values{} 71.7) gave inf in
# compare.dat; a median that is not the median of its values{}; a node's value out of bounds.
fl=examples/providers/fleet-localhost/fleet.json
jq '.benchmarks[].median = 1e308' $fl >"$tmp/flbig.json"
jq '.benchmarks[0].median = 1000' $fl >"$tmp/flmed.json"
jq '.benchmarks[0].values["vm-r1"] = -3' $fl >"$tmp/flval.json"
jq '.collectives.allreduce[0].busbw_gbytes_per_s = 1e300' $fl >"$tmp/flbus.json"
# A median without values{} (or with none numeric) was taken unchecked.
jq '.benchmarks |= map(.median = 1e17 | del(.values))' $fl >"$tmp/flnovals.json"
jq '.benchmarks[0].values = {}' $fl >"$tmp/flnonum.json"
for case in flbig:'median = 1e.308 is not plausible' flmed:'median = 1000 is not the median' \
  flval:'values.vm-r1 = -3 is negative' flbus:'busbw_gbytes_per_s = 1e.300 is not plausible' \
  flnovals:'median has no values{}' flnonum:'median has no numeric values{}'; do
  name=${case%%:*} want=${case#*:}
  $ns compare $tmp/$name.json $src --out $tmp/o-$name-c >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "error: .*$name.json.*$want" "$tmp/err" ||
    fail "$name: compare: exit $rc: $(head -c 300 "$tmp/err")"
  [ -e "$tmp/o-$name-c" ] && fail "$name: compare wrote"
done
$ns compare $fl examples/providers/vm-2core-run1/results.json --out "$tmp/good3" >/dev/null 2>&1 ||
  fail "$fl refused by compare"
# The unchanged file still passes every consumer.
$ns roofline $src --no-plot --out "$tmp/good" >/dev/null 2>&1 || fail "good file refused by roofline"
$ns roofline $sw --no-plot --out "$tmp/good2" >/dev/null 2>&1 || fail "$sw refused by roofline"
[ $fails -eq 0 ] && echo "results_check: ok"
exit $((fails > 0))
