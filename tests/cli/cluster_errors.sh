#!/usr/bin/env bash
# Bad input to nodescale cluster: exit 2 with exactly one line on stderr, nothing on stdout, and
# no file written.
set -uo pipefail
cd "$(dirname "$0")/../.."
ns=bin/nodescale
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0

expect_usage() { # $1 = what the message must contain; the rest = arguments
  local want=$1; shift
  local json=(--json "$tmp/should-not-exist.json")
  [[ " $* " == *" --json "* ]] && json=() # a case with its own --json (given twice is refused)
  $ns cluster "${json[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local lines; lines=$(wc -l <"$tmp/err")
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$tmp/out" ] || ! grep -q -- "$want" "$tmp/err" \
     || [ -e "$tmp/should-not-exist.json" ]; then
    echo "FAIL: cluster $* -> rc=$rc, $lines stderr lines: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
  fi
}

expect_usage "unknown preset" --preset no-such-thing --chips 8
# Trial 16 #2: --params fed MFU and memory but not the step (MFU 116.5%).
expect_usage "params (1.6e+12) cannot stand beside the model shape" --preset h100-sxm \
  --chips 8192 --params 1.6e12 --tp 8 --pp 16
expect_usage "cannot stand beside the model shape" --preset h100-sxm --chips 8 --params 1e9 \
  --layers 2 --hidden 1024 --heads 8 --kv-heads 8 --ffn 4096 --vocab 1000 --seq-tokens 512
# Trial 7 #10: --search dropped --tp silently.
expect_usage "--search chooses the parallel layout itself, so --tp" --preset h100-sxm --search \
  --tp 8 --chips 1024
expect_usage "so --micro-batch-seqs would be ignored" --preset h100-sxm --search \
  --micro-batch-seqs 2 --chips 1024
expect_usage "not the chip count" --preset h100-sxm --chips 8192 --tp 8 --pp 16 --dp 32
expect_usage "divide the head count" --preset h100-sxm --chips 6144 --tp 6
expect_usage "does not divide the chip count" --preset h100-sxm --chips 1000 --tp 8 --pp 16
expect_usage "must divide the global batch" --preset a100-sxm --tp 8 --pp 16 # 1536: dp 12
expect_usage "no chip count has a valid configuration" --preset h100-sxm --chips 127 # > 126 layers
expect_usage "--chips wants" --preset h100-sxm --chips 0
expect_usage "--chips wants" --preset h100-sxm --chips -8
expect_usage "--chips wants" --preset h100-sxm --chips 8,,x
expect_usage "--chips wants" --preset h100-sxm --chips 8,,16 # an empty element is no count
expect_usage "--chips wants" --preset h100-sxm --chips 8,
expect_usage "--chips wants" --preset h100-sxm --chips ,8
expect_usage "integer in 1..16777216," --preset h100-sxm --chips 8 --tp 2.5 # not 1.67772e+07
expect_usage "--layers wants" --preset h100-sxm --chips 8192 --layers 0
expect_usage "--hidden wants" --preset h100-sxm --chips 8192 --hidden -5
expect_usage "--mem-bw-gbytes-per-s wants" --preset h100-sxm --chips 8 --mem-bw-gbytes-per-s 0
expect_usage "--pue wants" --preset h100-sxm --chips 8 --pue 0.5
expect_usage "--tp wants" --preset h100-sxm --chips 8 --tp 2.5
expect_usage "needs a value" --preset h100-sxm --chips
expect_usage "unknown option" --preset h100-sxm --chips 8 --frobnicate
expect_usage "--precision" --preset h100-sxm --chips 8 --precision fp128
expect_usage "no dense peak" --preset tpu-v4 --chips 4096 --precision fp8
expect_usage "cp (3) must divide" --preset h100-sxm --chips 24 --tp 8 --pp 1 --cp 3
expect_usage "interleaved" --preset h100-sxm --chips 16384 --interleave 2 --micro-batch-seqs 2
expect_usage "--node" --preset h100-sxm --chips 8 --node /nonexistent/results.json
expect_usage "--node" --preset h100-sxm --chips 8 --node tests/fixtures/fleet_synthetic.json
expect_usage "--allreduce" --preset h100-sxm --chips 8 --allreduce /nonexistent.json
expect_usage "fleet_no_collectives.json has no measured all-reduce fit (--no-collectives)" \
  --preset h100-sxm --chips 8 --allreduce tests/fixtures/fleet_no_collectives.json
expect_usage "no chip: give --preset CHIP" --preset llama3-405b
expect_usage "no chip: give --preset CHIP"
expect_usage "has no peak: its preset takes the chip from a measured node; give --node" \
  --preset cpu-node
expect_usage "no dense peak" --preset tpu-v4 --chips 4096 --precision fp8 --search

# Output paths are checked before anything is computed: exit 2, no table, nothing written.
expect_usage "--json /nonexistent/x.json: cannot write there" --preset gb300-nvl72 \
  --json /nonexistent/x.json
expect_usage "is a folder, not a file" --preset h100-sxm --json "$tmp"
: >"$tmp/afile"
expect_usage "--plot-dir $tmp/afile/plots" --preset h100-sxm --plot-dir "$tmp/afile/plots"
NODESCALE_GNUPLOT=/no/such/gnuplot expect_usage "cannot find /no/such/gnuplot" \
  --preset h100-sxm --plot-dir "$tmp/plots"
[ -e "$tmp/plots" ] && { echo "FAIL: --plot-dir made before the check"; fails=$((fails + 1)); }

# trial 11 #1: --json never over its --node input (a run's results.json) nor a fleet's, a gate's
# or a compare's file; an earlier cluster report is rewritten.
mkdir "$tmp/run"
cp tests/fixtures/results_synthetic.json "$tmp/run/results.json"
cp tests/fixtures/fleet_one_host.json "$tmp/fleet.json"
echo '{"schema":"nodescale-gate/1","verdict":"pass"}' >"$tmp/gate.json"
for f in run/results.json fleet.json gate.json; do
  cp "$tmp/$f" "$tmp/before"
  expect_usage "--json $tmp/$f holds .*not an earlier cluster report: give a new file" \
    --node "$tmp/run/results.json" --chips 64 --json "$tmp/$f"
  cmp -s "$tmp/$f" "$tmp/before" || { echo "FAIL: --json changed $f"; fails=$((fails + 1)); }
done
$ns cluster --node "$tmp/run/results.json" --chips 64 --json "$tmp/c.json" >/dev/null &&
  $ns cluster --node "$tmp/run/results.json" --chips 64 --json "$tmp/c.json" >/dev/null ||
  { echo "FAIL: --json over an earlier cluster report"; fails=$((fails + 1)); }
# trial 11 #7: --plot-dir never beside a run's, compare's or fleet's files (the shared list).
mkdir "$tmp/cmp"
echo '{}' >"$tmp/cmp/compare.json"
for d in run cmp; do
  expect_usage "--plot-dir $tmp/$d already holds .* of a run, roofline, fleet or compare" \
    --node tests/fixtures/results_synthetic.json --chips 64 --plot-dir "$tmp/$d"
  ls "$tmp/$d" | grep -q cluster_ && { echo "FAIL: --plot-dir wrote into $d"; fails=$((fails + 1)); }
done

# A preset file with a bad value.
echo '{"chip": {"mem_bw_gbytes_per_s": -1}}' >"$tmp/bad.json"
expect_usage "out of range" --preset h100-sxm --preset "$tmp/bad.json" --chips 8
echo '{"chip": ' >"$tmp/broken.json"
expect_usage "preset" --preset "$tmp/broken.json" --chips 8

# --node refusals that say what to pass instead: a fleet.json names a node's results.json; a
# `bench` GEMM result (no fraction_of_roof) has GEMMs but no roofline: `nodescale run`.
cat >"$tmp/fl.json" <<'JSON'
{"schema": "nodescale/1", "kind": "fleet", "status": "complete",
 "nodes": [{"name": "n1", "host": "n1", "rank": 0, "status": "ok", "results": "nodes/n1/results.json"}]}
JSON
expect_usage "is a fleet.json, not one node's results: pass a node's results.json from its folder (nodes/n1/results.json)" \
  --chips 8 --node "$tmp/fl.json"
cat >"$tmp/bench.json" <<'JSON'
{"schema": "nodescale/1", "context": {}, "results": [{"id": "dgemm/t1/n=1024", "family": "gemm",
 "params": {"m": 1024, "n": 1024, "k": 1024}, "time_s": {"median": 0.1, "cv": 0.01},
 "fraction_of_roof": null, "status": "ok"}]}
JSON
expect_usage "has 1 GEMM result but no roofline .*nodescale run" --chips 8 --node "$tmp/bench.json"
expect_usage "has 1 GEMM result but no roofline" --preset h100-sxm --chips 8 --node "$tmp/bench.json"
# A fleet whose ranks all ran on one host measured shared memory: not the scale-out road.
expect_usage "every rank of this fleet ran on one host (vm): its all-reduce measured shared memory" \
  --preset h100-sxm --chips 1024 --allreduce tests/fixtures/fleet_one_host.json
expect_usage "ran on one host" --preset h100-sxm --chips 1024 --allreduce tests/fixtures/fleet_one_host.json \
  --allreduce-road scaleout
# A poor all-reduce fit is refused; the option that accepts it needs --allreduce.
expect_usage "a poor alpha-beta fit (worst relative residual 84%" \
  --preset h100-sxm --chips 1024 --allreduce tests/fixtures/fleet_one_host.json --allreduce-road scaleup
expect_usage "--allreduce-accept-poor-fit needs --allreduce" --preset h100-sxm --chips 8 \
  --allreduce-accept-poor-fit

[ $fails -eq 0 ] && echo "cluster bad-input checks ok"
exit $((fails > 0))
