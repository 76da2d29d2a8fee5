#!/usr/bin/env bash
# `nodescale compare` on the synthetic provider fixtures (tests/fixtures/fleet, not
# measurements: peak and GEMM within 1.5%, stream and reduce 15-35% apart): the verdict line
# follows the data, rows are sorted by spread, the files and the plot are written, a fleet.json
# is accepted as an input (and expanded per node with --nodes), bad input exits 2.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/compare.sh

$bin compare $fx/provider_x.json $fx/provider_y.json $fx/provider_z.json --out "$tmp/c" \
  >"$tmp/c.md" 2>"$tmp/c.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; cat "$tmp/c.err"; fails=$((fails + 1)); }
grep -q 'Distinguish the 3 inputs: stream/bandwidth (2/2), reduce (2/2); do not: gemm (0/2), peak (0/2)' \
  "$tmp/c.md" || { echo "FAIL: verdict line"; grep Distinguish "$tmp/c.md"; fails=$((fails + 1)); }
jq -e '(.benchmarks | length) == 8
       and ([.benchmarks[].max_over_min] | . == (sort | reverse))
       and ([.classes[] | select(.class == "gemm")][0].distinguishes == false)
       and ([.classes[] | select(.class == "allreduce")][0].distinguishes == null)' \
  "$tmp/c/compare.json" >/dev/null || { echo "FAIL: compare.json"; fails=$((fails + 1)); }
for f in compare.md compare.dat compare.gp; do [ -s "$tmp/c/$f" ] || { echo "FAIL: $f"; fails=$((fails + 1)); }; done
if command -v gnuplot >/dev/null; then
  grep -q '<svg' "$tmp/c/compare.svg" || { echo "FAIL: compare.svg"; fails=$((fails + 1)); }
fi
cmp -s "$tmp/c.md" "$tmp/c/compare.md" || { echo "FAIL: stdout differs from compare.md"; fails=$((fails + 1)); }

# Real results as `nodescale run` writes them (examples/providers: two runs on this project's VM):
# every results[] entry with a rate is compared, and each all-reduce size (ring and tree busbw,
# trial 16 #12: "not measured in >= 2 inputs: allreduce" though both had measured it).
ex=examples/providers
if [ -f $ex/vm-2core-run1/results.json ]; then
  $bin compare $ex/vm-2core-run1/results.json $ex/vm-2core-run2/results.json --out "$tmp/ex" \
    >"$tmp/ex.md" 2>"$tmp/ex.err" || { echo "FAIL: compare on the example runs"; cat "$tmp/ex.err"; fails=$((fails + 1)); }
  want=$(jq '[.results[] | select(.status == "ok" and (.gflops != null or .gbytes_per_s != null))] | length' \
    $ex/vm-2core-run1/results.json)
  ar=$(jq '[.allreduce.ring[], .allreduce.tree[] | select(.validated != false and .busbw_gbytes_per_s > 0)] | length' \
    $ex/vm-2core-run1/results.json)
  jq -e --argjson n "$want" --argjson a "$ar" '(.benchmarks | length) == $n + $a and $n > 0 and $a > 0
      and ([.benchmarks[] | select(.class == "allreduce")] | length) == $a
      and ([.classes[] | select(.class == "allreduce")][0].benchmarks == $a)' \
    "$tmp/ex/compare.json" >/dev/null ||
    { echo "FAIL: example compare: not every result and all-reduce size compared"; fails=$((fails + 1)); }
  grep -q 'not measured in >= 2 inputs: allreduce' "$tmp/ex.md" &&
    { echo "FAIL: example compare: all-reduce called not measured"; fails=$((fails + 1)); }
fi

# --labels names the columns.
$bin compare --labels X,Y $fx/provider_x.json $fx/provider_y.json --out "$tmp/l" >"$tmp/l.md" 2>/dev/null
grep -q '| benchmark | class | unit | X | Y |' "$tmp/l.md" || { echo "FAIL: --labels"; fails=$((fails + 1)); }

# A fleet file (3 nodes of fixtures, no collectives) as one input, and per node.
if command -v mpirun >/dev/null; then
  root=""; [ "$(id -u)" = 0 ] && root=--allow-run-as-root
  if OMPI_MCA_btl_vader_single_copy_mechanism=none timeout -k 2 60 mpirun $root --oversubscribe -np 3 \
       $bin fleet --quick --no-collectives --ranks-per-node 3 --from-results "$fx/node%r.json" \
       --out "$tmp/f" >/dev/null 2>&1; then
    $bin compare "$tmp/f/fleet.json" $fx/provider_x.json --out "$tmp/fc" >"$tmp/fc.md" 2>"$tmp/fc.err" ||
      { echo "FAIL: compare with a fleet.json"; cat "$tmp/fc.err"; fails=$((fails + 1)); }
    grep -q '3 (fleet medians)' "$tmp/fc.md" || { echo "FAIL: fleet input not shown as medians"; fails=$((fails + 1)); }
    $bin compare --nodes "$tmp/f/fleet.json" --out "$tmp/fn" >"$tmp/fn.md" 2>/dev/null ||
      { echo "FAIL: --nodes"; fails=$((fails + 1)); }
    jq -e '(.inputs | length) == 3' "$tmp/fn/compare.json" >/dev/null || { echo "FAIL: --nodes inputs"; fails=$((fails + 1)); }
  else
    echo "note: mpirun could not start; fleet-input part not run"
  fi
fi

# Bad input: exit 2, one line, nothing written.
echo '{"schema":"other"}' >"$tmp/bad.json"
for args in "$fx/provider_x.json" "$fx/provider_x.json $tmp/bad.json" "$fx/provider_x.json $tmp/none.json" \
            "--min-spread x $fx/provider_x.json $fx/provider_y.json" "--bogus"; do
  $bin compare $args --out "$tmp/bad" >"$tmp/b.out" 2>"$tmp/b.err"
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/b.err")" -eq 1 ] && grep -q '^nodescale compare: error: ' "$tmp/b.err" ||
    { echo "FAIL: compare $args: exit $rc"; cat "$tmp/b.err"; fails=$((fails + 1)); }
  [ -e "$tmp/bad" ] && { echo "FAIL: compare $args wrote output"; fails=$((fails + 1)); }
done

[ $fails -eq 0 ] && echo "fleet_compare: ok"
exit $((fails > 0))
