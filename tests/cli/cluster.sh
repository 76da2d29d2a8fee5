#!/usr/bin/env bash
# nodescale cluster from the command line: the seed002 preset's toy table character for character, a preset
# run, the node bridge on the synthetic fixture, strict JSON output, plots, and --help listing
# every flag the parser accepts.
set -euo pipefail
cd "$(dirname "$0")/../.."
ns=bin/nodescale
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# The seed002 preset: its toy model's table, character for character.
cat >"$tmp/seed002.txt" <<'TXT'
     1 GPUs: peak  0.00 EF  MFU 62.0%  realized  0.00 EF  power   0.0 MW
     8 GPUs: peak  0.01 EF  MFU 56.0%  realized  0.00 EF  power   0.0 MW
   512 GPUs: peak  0.51 EF  MFU 44.0%  realized  0.23 EF  power   0.7 MW
  8192 GPUs: peak  8.19 EF  MFU 36.0%  realized  2.95 EF  power  11.5 MW
 32768 GPUs: peak 32.77 EF  MFU 32.0%  realized 10.49 EF  power  45.9 MW
TXT
$ns cluster --preset seed002 >"$tmp/out.txt"
cmp "$tmp/seed002.txt" "$tmp/out.txt"

# A preset run with a fixed configuration, and the same as strict JSON.
$ns cluster --preset h100-sxm --preset llama3-405b --chips 8192,16384 >"$tmp/h100.txt"
grep -q "Llama 3 405B" "$tmp/h100.txt"
grep -q "step-time breakdown" "$tmp/h100.txt"
$ns cluster --preset h100-sxm --chips 8192 --json "$tmp/h100.json"
python3 - "$tmp/h100.json" <<'PY'
import json, sys
def bad(c): raise ValueError("non-finite JSON constant " + c)
d = json.load(open(sys.argv[1]), parse_constant=bad)
p = d["points"][0]
assert p["chips"] == 8192 and p["tp"] * p["pp"] * p["cp"] * p["dp"] == 8192, p
b = p["breakdown"]
assert abs(sum(b.values()) - p["step_s"]) < 1e-9 * p["step_s"], (b, p["step_s"])
assert 0 < p["mfu"] < 1
PY

# Each chip preset alone prints a table over its own chip counts: where the default model's
# TP 8 x PP 16 does not fit a count, the row comes from the search, with a note.
for p in a100-sxm h100-sxm h200 gb200-nvl72 gb300-nvl72 tpu-v4; do
  $ns cluster --preset $p >"$tmp/$p.txt" || { echo "cluster --preset $p failed"; exit 1; }
  grep -q "step-time breakdown" "$tmp/$p.txt"
done
grep -q "^note: 8 chips: the preset layout TP 8 x PP 16 x CP 1 does not fit" "$tmp/h100-sxm.txt"
grep -q "^note: 1536 chips: .*must divide the global batch" "$tmp/a100-sxm.txt"
$ns cluster --preset gb300-nvl72 --json "$tmp/gb300.json" >/dev/null
python3 - "$tmp/gb300.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [p["chips"] for p in d["points"]] == [72, 576, 2304, 9216, 18432], d["points"]
assert all(p["layout"] == "searched" for p in d["points"]) and len(d["notes"]) == 5, d["notes"]
PY
# A count with no valid configuration at all (127 > 126 layers, prime) is dropped, not fatal.
$ns cluster --preset h100-sxm --chips 8192,127 >"$tmp/drop.txt"
grep -q "^note: 127 chips dropped: no valid configuration" "$tmp/drop.txt"
$ns cluster --preset h100-sxm --chips 127,8192 --search >"$tmp/drop2.txt"
grep -q "^note: 127 chips dropped" "$tmp/drop2.txt"

# Search, several chip counts, plots (skipped quietly if gnuplot is missing: the .gp stays).
$ns cluster --preset gb300-nvl72 --chips 576,2304 --search --top 2 --plot-dir "$tmp" >"$tmp/s.txt"
grep -q "configurations evaluated" "$tmp/s.txt"
test -s "$tmp/cluster_breakdown.gp" && test -s "$tmp/cluster_scaling.dat"
if command -v gnuplot >/dev/null; then test -s "$tmp/cluster_breakdown.svg"; fi

# --plot-dir makes a folder that does not exist yet (as roofline --out and compare --out do).
$ns cluster --preset gb300-nvl72 --search --json "$tmp/c.json" --plot-dir "$tmp/new/cplots" \
    >/dev/null
test -s "$tmp/c.json" && test -s "$tmp/new/cplots/cluster_scaling.gp"

# The node bridge: the node as the chip, and the node's efficiency on a preset chip.
$ns cluster --node tests/fixtures/results_synthetic.json --chips 64 --search >"$tmp/node.txt"
grep -q "synthetic 2-core AVX-512 node" "$tmp/node.txt"
# A CPU node delivers well under 1 TFLOP/s: the column is in GFLOP/s and never reads 0.0.
grep -q "GFLOP/s/chip" "$tmp/node.txt"
awk '/GFLOP\/s\/chip/ {getline; if ($13 + 0 <= 0) exit 1}' "$tmp/node.txt"
$ns cluster --preset h100-sxm --node tests/fixtures/results_synthetic.json --chips 16384 \
    --allreduce tests/fixtures/fleet_synthetic.json >"$tmp/node2.txt"
grep -q "H100 SXM" "$tmp/node2.txt"
# With --gemm-efficiency the node's table is not used, and only one source is said.
$ns cluster --node tests/fixtures/results_synthetic.json --gemm-efficiency 0.5 --chips 64 \
  --json "$tmp/eff.json" >"$tmp/eff.txt"
grep -q "GEMM efficiency 0.5 for all shapes" "$tmp/eff.txt"
grep -q "from --gemm-efficiency (its 3 measured GEMM shapes not used)" "$tmp/eff.txt"
if grep -q "efficiency = fraction_of_roof" "$tmp/eff.txt"; then echo "FAIL: two sources"; exit 1; fi
grep -q '"gemm_efficiency_statistic": "--gemm-efficiency' "$tmp/eff.json"
# A disturbed node: the GEMM above its roof is refused (not capped to 1.0) and the noisy CV is
# flagged, in the text and in the JSON's node section; --step-cv replaces it.
$ns cluster --node tests/fixtures/results_noisy.json --chips 64 --json "$tmp/noisy.json" \
    >"$tmp/noisy.txt"
grep -q "^warning: 1 GEMM result above the roof refused" "$tmp/noisy.txt"
grep -q "^warning: step CV 0.6 (median time_s.cv of 3 GEMM results: sample jitter within one run) is above 0.2" "$tmp/noisy.txt"
# The CV taken is labelled for what it is (within-run sample jitter), with its source and the
# flag that overrides it; never "run-to-run".
grep -q "step CV 0.6 = median time_s.cv of 3 GEMM results: their sample-to-sample jitter within one run, used as the training step-time CV (--step-cv overrides it)" "$tmp/noisy.txt"
if grep -qi "run-to-run" "$tmp/noisy.txt" "$tmp/noisy.json"; then echo "run-to-run label"; exit 1; fi
grep -q "fp64 dense peak 200 GFLOP/s" "$tmp/noisy.txt" # the precision of the GEMM table
# As the chip, the efficiency is the GEMM's rate re-based on the peak taken.
grep -q "GEMM shapes (fp64), efficiency = the GEMM's median-sample rate (gflops, on the threads it ran) / the fp64 peak the chip takes (200 GFLOP/s, a ceiling on 2 threads)" "$tmp/noisy.txt"
python3 - "$tmp/noisy.json" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))["node"]
assert n["gemm_points_refused"] == ["dgemm/avx512/dp/t2/m=1024"], n
# The efficiency's statistic is said (median sample against the ceiling's fastest).
assert n["gemm_efficiency_statistic"].startswith("the GEMM's median-sample rate (gflops, on the threads it ran) / the fp64 peak the chip takes"), n
assert n["variability_status"].startswith("disturbed"), n
assert n["step_cv"] == 0.6 and "3 fp64 GEMM results" in n["step_cv_source"], n
PY
$ns cluster --node tests/fixtures/results_noisy.json --chips 64 --step-cv 0.01 >"$tmp/quiet.txt"
grep -q "step CV from --step-cv" "$tmp/quiet.txt"
if grep -q "warning: step CV" "$tmp/quiet.txt"; then echo "--step-cv left the warning"; exit 1; fi

# A fleet.json's fit (allreduce.fit, MPI ranks across nodes) goes to the scale-out road; the
# ring fit over 2 ranks is per link alpha 2 us / 2 = 1 us and 1 / (1e-10 s/B) = 10 GB/s.
cat >"$tmp/fleet.json" <<'JSON'
{"schema": "nodescale/1", "kind": "fleet", "status": "complete",
 "allreduce": {"ranks": 2, "fit": {"alpha_s": 2e-6, "beta_s_per_byte": 1e-10, "ranks": 2}}}
JSON
$ns cluster --preset h100-sxm --chips 8192 --allreduce "$tmp/fleet.json" >"$tmp/fleet.txt"
grep -q "scale-up: 8 chips at 450 GB/s per direction, α 3 µs; scale-out: 10 GB/s per direction, α 1 µs" "$tmp/fleet.txt"

# --help lists every flag the parser accepts (each key of the table is a flag).
$ns cluster --help >"$tmp/help.txt"
for f in --preset --node --allreduce --allreduce-road --allreduce-accept-poor-fit --chips --search --top --json --plot-dir \
         --list-presets --peak-tflop-per-s --gemm-efficiency --precision --recompute \
         --mem-bw-gbytes-per-s --scaleup-gbytes-per-s-per-dir --scaleout-gbytes-per-s-per-dir \
         --domain-chips --tp --pp --cp --dp --micro-batch-seqs --interleave --step-cv \
         --chip-mtbf-h --pue --usd-per-chip-h --layers --global-batch-seqs; do
  grep -q -- "$f" "$tmp/help.txt" || { echo "--help does not list $f"; exit 1; }
done
$ns cluster --list-presets | grep -q h100-sxm
# The same one-host fleet as the scale-up road: its fit is a poor fit (worst residual 84%, the
# old key max_rel_resid), refused with exit 2 unless --allreduce-accept-poor-fit, which warns.
if $ns cluster --preset h100-sxm --chips 1024 --allreduce tests/fixtures/fleet_one_host.json \
    --allreduce-road scaleup >"$tmp/oh.txt" 2>"$tmp/oh.err"; then exit 1; else [ $? -eq 2 ]; fi
grep -q "^nodescale cluster: error: .*a poor alpha-beta fit (worst relative residual 84%.*--allreduce-accept-poor-fit" "$tmp/oh.err"
[ ! -s "$tmp/oh.txt" ]
$ns cluster --preset h100-sxm --chips 1024 --allreduce tests/fixtures/fleet_one_host.json \
    --allreduce-road scaleup --allreduce-accept-poor-fit >"$tmp/oh.txt"
grep -q "^warning: --allreduce .*a poor alpha-beta fit (worst relative residual 84%), used as --allreduce-accept-poor-fit" "$tmp/oh.txt"
$ns cluster --preset h100-sxm --chips 1024 --allreduce tests/fixtures/fleet_one_host.json \
    --allreduce-road scaleup --allreduce-accept-poor-fit --json - 2>"$tmp/oh.err" |
  jq -e '.warnings | length == 1' >/dev/null
grep -q "^nodescale cluster: warning: --allreduce .*84%" "$tmp/oh.err"

# results.json and fleet.json write the residual as max_rel_residual (the key the
# reader used to miss) and a status "poor fit: ..." above 0.5; either refuses the fit, and a
# residual between 25% and 50% warns.
for key in max_rel_residual max_rel_resid; do
  jq -n --arg k $key '{results: [], allreduce: {fit: {alpha_s: 5e-7, beta_s_per_byte: 1e-10,
      ranks: 2, ($k): 0.92, status: "poor fit: max_rel_residual 0.92 > 0.5"}}}' >"$tmp/poor.json"
  if $ns cluster --preset h100-sxm --chips 1024 --allreduce "$tmp/poor.json" 2>"$tmp/p.err"; then
    exit 1; else [ $? -eq 2 ]; fi
  grep -q "poor alpha-beta fit (worst relative residual 92%" "$tmp/p.err"
done
jq -n '{results: [], allreduce: {fit: {alpha_s: 5e-7, beta_s_per_byte: 1e-10, ranks: 2,
    status: "poor fit: ..."}}}' >"$tmp/poor.json"
if $ns cluster --preset h100-sxm --chips 1024 --allreduce "$tmp/poor.json" 2>"$tmp/p.err"; then
  exit 1; else [ $? -eq 2 ]; fi
grep -qF 'poor alpha-beta fit (status "poor fit: ...";' "$tmp/p.err"
jq -n '{results: [], allreduce: {fit: {alpha_s: 5e-7, beta_s_per_byte: 1e-10, ranks: 2,
    max_rel_residual: 0.3}}}' >"$tmp/rough.json"
$ns cluster --preset h100-sxm --chips 1024 --allreduce "$tmp/rough.json" >"$tmp/r.txt"
grep -q "^warning: --allreduce .*worst relative residual is 30% (> 25%)" "$tmp/r.txt"

# --node without a chip preset: the node's RAM is the memory capacity (a verdict, and
# --recompute auto chooses); with no RAM in the file the output says why there is no verdict.
$ns cluster --node tests/fixtures/results_synthetic.json --chips 8 --recompute auto >"$tmp/nm.txt"
grep -q "^warning: no memory verdict (fits ?): .*no context.memory.total_bytes); give --mem-capacity-gbytes; --recompute auto cannot choose" "$tmp/nm.txt"
jq '.context.memory = {"total_bytes": 25e9}' tests/fixtures/results_synthetic.json >"$tmp/mem.json"
$ns cluster --node "$tmp/mem.json" --chips 8 --recompute auto >"$tmp/m.txt"
grep -q "^memory capacity per chip 25 GB: the node's RAM" "$tmp/m.txt"
if grep -q "fits ?\| ? " "$tmp/m.txt" || grep -q "no memory verdict" "$tmp/m.txt"; then
  echo "memory verdict still unknown"; exit 1; fi
awk '/mem_GB fits/ {getline; if ($9 == "none") exit 1}' "$tmp/m.txt" ||
  { echo "--recompute auto stayed none though 8 chips cannot hold the model"; exit 1; }

# GPipe's bubble share (K-1)/(M+K-1) is an output, in the table and the JSON:
# PP 16 and 32 micro-batches at 8,192 chips give 15/47.
$ns cluster --preset h100-sxm --chips 8192 >"$tmp/g.txt"
grep -q "GPipe bubble share" "$tmp/g.txt" && grep -q " 31.91%$" "$tmp/g.txt" ||
  { echo "no GPipe bubble share in the table"; exit 1; }
$ns cluster --preset h100-sxm --chips 8192 --json - |
  jq -e '.points[0].bubble_share_gpipe - 15/47 | fabs < 1e-12' >/dev/null ||
  { echo "no points[].bubble_share_gpipe in the JSON"; exit 1; }

# The MFU note says the masked half only where the model skips it (causal mask,
# flash attention), not for megatron-1t without a causal mask or with unfused attention; its
# tied input embedding is no extra parameter, so the note names none (it said "the input
# embedding" before tied_embeddings).
for c in 0 1; do
  $ns cluster --preset a100-sxm --preset megatron-1t --chips 3072 --causal $c >"$tmp/mfu.txt"
  grep -q "^MFU: PaLM's model FLOPs .* count nothing the model skips (the input embedding is tied" "$tmp/mfu.txt" &&
    ! grep -q "masked half of attention, which" "$tmp/mfu.txt" ||
    { echo "megatron-1t --causal $c: MFU note"; cat "$tmp/mfu.txt"; exit 1; }
done
$ns cluster --preset h100-sxm --chips 16384 | grep -q "causally masked half of attention, which flash" ||
  { echo "llama3-405b: MFU note lost the masked half"; exit 1; }

# The table's MFU note and the JSON's mfu_convention are one sentence (ns_mfu_convention_text).
for p in h100-sxm megatron-1t; do
  pre=(--preset h100-sxm); [ $p = megatron-1t ] && pre=(--preset a100-sxm --preset megatron-1t)
  $ns cluster "${pre[@]}" --chips 3072 >"$tmp/conv.txt"
  conv=$($ns cluster "${pre[@]}" --chips 3072 --json - | jq -r '.points[0].mfu_convention')
  [ -n "$conv" ] && grep -qxF "MFU: $conv." "$tmp/conv.txt" ||
    { echo "$p: the table's MFU note is not the JSON's mfu_convention"; exit 1; }
done

# --recompute auto tries selective before whole layers when scores are stored (megatron-1t,
# unfused attention), and the README says so.
$ns cluster --preset a100-sxm --preset megatron-1t --chips 3072 --tp 8 --pp 64 --dp 6 \
  --recompute auto --mem-capacity-gbytes 140 --json - | jq -e '.points[0].recompute == "selective"' >/dev/null ||
  { echo "--recompute auto: not selective for megatron-1t at 140 GB"; exit 1; }
tr '\n' ' ' <README.md | grep -q '`--recompute auto` takes the cheapest recomputation that fits (none; then, when attention scores are stored (no flash attention), selective;' ||
  { echo "README: --recompute auto does not say it tries selective"; exit 1; }

echo "cluster CLI ok"
