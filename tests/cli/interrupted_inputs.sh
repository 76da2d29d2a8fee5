#!/usr/bin/env bash
# Trial 7 #11: an interrupted results.json ("interrupted": true) passed silently through fleet,
# compare and cluster --node. Each now warns; fleet marks the node and is not "complete".
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
