#!/usr/bin/env bash
# Trial 7 #12: roofline, compare and cluster --node took results files that gate refused (two
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
for case in dupid:duplicate time:time_s samples:samples_s ceiling:'gflops = -5 is negative' \
  huge:'not plausible' tiny:'not plausible' status:status many:'1025 samples, more than 1024'; do
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
# The unchanged file still passes every consumer.
$ns roofline $src --no-plot --out "$tmp/good" >/dev/null 2>&1 || fail "good file refused by roofline"
[ $fails -eq 0 ] && echo "results_check: ok"
exit $((fails > 0))
