#!/usr/bin/env bash
# An interrupted results.json ("interrupted": true) passed silently through fleet,
# compare and cluster --node. Each now warns; fleet marks the node and is not "complete".
# Trial 9 #10, #11: an input with every result cut: the reasons compare and gate give.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh
jq '.interrupted = true' tests/fixtures/results_synthetic.json >"$tmp/cut.json"

$ns cluster --node "$tmp/cut.json" --chips 64 --json "$tmp/cl.json" >"$tmp/cl.out" 2>&1 ||
  fail "cluster --node exit $?"
grep -q 'warning: .*interrupted' "$tmp/cl.out" || fail "cluster --node: no interrupted warning"
jq -e '.. | objects | select(has("interrupted_warning")) | .interrupted == true' "$tmp/cl.json" \
  >/dev/null || fail "cluster --json: node not marked interrupted"

$ns compare "$tmp/cut.json" tests/fixtures/results_synthetic.json --out "$tmp/cmp" \
  >/dev/null 2>"$tmp/cmp.err" || fail "compare exit $?"
grep -q 'warning: .*interrupted' "$tmp/cmp.err" || fail "compare: no warning on stderr"
jq -e '.warning | test("interrupted")' "$tmp/cmp/compare.json" >/dev/null ||
  fail "compare.json: no interrupted warning"
grep -q 'interrupted' "$tmp/cmp/compare.md" || fail "compare.md: no interrupted warning"

# Trial 9 #10, #11: an input whose every result was cut ("interrupted after 12 of 50 samples").
# compare says its results were dropped by their status (not "empty or all null"); gate prints
# the interrupted warning before its exit-2 "no benchmark with data in common".
jq '.interrupted = true | .results[].status = "interrupted after 12 of 50 samples"' \
  tests/fixtures/results_synthetic.json >"$tmp/allcut.json"
$ns compare "$tmp/allcut.json" tests/fixtures/results_synthetic.json --out "$tmp/cmp2" \
  >/dev/null 2>"$tmp/cmp2.err"
rc=$?
[ $rc -eq 2 ] || fail "compare, every result cut: exit $rc, want 2"
grep -q 'error: .*status other than "ok" ("interrupted after 12 of 50 samples".*dropped' \
  "$tmp/cmp2.err" || { fail "compare, every result cut: no reason"; cat "$tmp/cmp2.err"; }
grep -q 'empty or all null' "$tmp/cmp2.err" && fail "compare: 'empty or all null' for cut results"
$ns gate tests/fixtures/results_synthetic.json "$tmp/allcut.json" >"$tmp/g.out" 2>"$tmp/g.err"
rc=$?
[ $rc -eq 2 ] || fail "gate, every result cut: exit $rc, want 2"
grep -q 'warning: the current .*allcut.json was interrupted' "$tmp/g.err" &&
  [ "$(grep -n 'warning:' "$tmp/g.err" | head -1 | cut -d: -f1)" -lt \
    "$(grep -n 'error:' "$tmp/g.err" | cut -d: -f1)" ] ||
  { fail "gate, every result cut: no interrupted warning before the error"; cat "$tmp/g.err"; }

if command -v mpirun >/dev/null; then
  export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_btl=self,vader,tcp
  MPIRUN="mpirun --oversubscribe"
  [ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
  timeout -k 2 60 $MPIRUN -np 1 $ns fleet --from-results "$tmp/cut.json" --no-collectives \
    --out "$tmp/fl" >/dev/null 2>"$tmp/fl.err"
  if [ -s "$tmp/fl/fleet.json" ]; then
    jq -e '.nodes[0].interrupted == true and (.nodes[0].warning | test("interrupted"))
           and .status != "complete"' "$tmp/fl/fleet.json" >/dev/null ||
      fail "fleet.json: interrupted node not marked"
    grep -q 'interrupted' "$tmp/fl/report.md" || fail "fleet report.md: no interrupted"
    grep -q 'warning: .*interrupted' "$tmp/fl.err" || fail "fleet: no warning on stderr"
  else
    echo "note: mpirun could not run a 1-rank fleet here; fleet part skipped"
  fi
fi
[ $fails -eq 0 ] && echo "interrupted_inputs: ok"
exit $((fails > 0))
