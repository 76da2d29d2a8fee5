#!/usr/bin/env bash
# CLI tests of `nodescale gate --history` and the context check: the suite geomean's
# threshold is raised by the suite's between-run drift as a row's is by its own; a history
# file gets the input checks: interrupted or injected refused, results below --min-samples not
# counted, one that counts for nothing named; a history's context difference is labelled
# "history", not "current"; an old file's hypervisor signature "KVMKVMKVM" is KVM.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/gate.sh

ids='dsum/avx2/dp/t1/n=4096;dsum/avx2/dp/t1/n=8192;dsum/avx2/dp/t1/n=12288;dsum/avx2/dp/t1/n=16384'
# m OUT SCALE DAY [key=value...]: four benchmarks at SCALE x 1 ms, context.date 2026-11-DAY.
m() {
    local out=$1 scale=$2 day=$3
    shift 3
    mk "$out" ids="$ids" scale="$scale" ctx.date="\"2026-11-$day\"" "$@"
}

cd "$tmp"
m base.json 1.0 01
m h1.json 1.10 02
m h2.json 0.92 03
m h3.json 1.03 04
m drift8.json 1.08 05

# --- #1: every kernel x1.08, within the drift the history measured: the suite passes too -------
gate 0 "#1: suite within the history's drift" base.json drift8.json --history h1.json \
    --history h2.json --history h3.json --json g.json
has out "of the suite geomean over 4 runs)" "#1: suite threshold raised"
hasnt out "suite geomean regressed" "#1: suite"
python3 -c "
import json, sys
s = json.load(open('g.json'))['suite']
sys.exit(0 if s['threshold'] > 0.15 and s['drift_runs'] == 4 and s['between_run_drift'] > 0.05 else 1)" ||
    fail "#1: --json suite threshold/drift"
# Without history the same +8% fails: the history is what passes it.
gate 1 "#1: without --history +8% fails" base.json drift8.json

# --- #2: history files get the input checks -------------------------------------------------
m h_intr.json 1.40 06 top.interrupted=true
m h_inj.json 1.40 07 'ctx.env={"NODESCALE_INJECT_SLOWDOWN":"dsum:0.4"}'
m h_few.json 1.5 08 n=1
m h_invalid.json 1.0 09 'status=invalid: output check failed'
m fail30.json 1.30 10
gate 2 "#2: interrupted history refused" base.json fail30.json --history h1.json --history h_intr.json
has err "error: --history h_intr.json was interrupted" "#2: interrupted named"
[ "$(wc -l <err)" -eq 1 ] || fail "#2: interrupted: one line"
gate 2 "#2: injected history refused" base.json fail30.json --history h1.json --history h_inj.json
has err "error: --history h_inj.json was recorded with NODESCALE_INJECT_SLOWDOWN=dsum:0.4" "#2: inj"
# Counted, h_few (one sample at x1.5) made a third run and raised every threshold past +30%.
gate 1 "#2: a one-sample history does not count" base.json fail30.json --history h1.json \
    --history h_few.json
has out "WARNING: --history h_few.json counts for nothing" "#2: few named"
hasnt out "threshold raised" "#2: few not counted"
gate 0 "#2: invalid history named" base.json base.json --history h1.json --history h_invalid.json
has out "WARNING: --history h_invalid.json counts for nothing" "#2: invalid named"
m h_slow.json 1.0 11 'ctx.clock_probe={"changed":true,"detail":"x"}'
gate 0 "#2: a history's disturbed clock warned" base.json base.json --history h_slow.json
has out "the history h_slow.json: the clock changed" "#2: history warning"

# --- #13: a history's context difference is the history's -----------------------------------
m h_t2.json 1.0 12 ctx.threads=2
gate 2 "#13: history of another thread count refused" base.json base.json --history h_t2.json
has err "history h_t2.json: threads differs (baseline 1, history 2)" "#13: text"
gate 0 "#13: --allow-context-mismatch" base.json base.json --history h_t2.json \
    --allow-context-mismatch --json g.json
has err "history h_t2.json: threads: baseline 1, history 2" "#13: banner"
python3 -c "
import json, sys
m = json.load(open('g.json'))['context_mismatch'][0]
sys.exit(0 if m.get('history') == 2 and 'current' not in m else 1)" || fail "#13: --json field"

# --- #5: the hypervisor by its name ----------------------------------------------------------
m old.json 1.0 01 ctx.hypervisor='"KVMKVMKVM"'
m new.json 1.0 13 'ctx.hypervisor_signature="KVMKVMKVM"'
gate 0 "#5: KVMKVMKVM baseline vs KVM current" old.json new.json
m vmw.json 1.0 14 ctx.hypervisor='"VMwareVMware"'
gate 2 "#5: another hypervisor still refused" old.json vmw.json
has err 'hypervisor differs (baseline "KVMKVMKVM", current "VMwareVMware")' "#5: refusal"

[ $fails -eq 0 ] || exit 1
echo "gate_history: all passed"
