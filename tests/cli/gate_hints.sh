#!/usr/bin/env bash
# CLI tests of what `nodescale gate` tells the user beyond the verdict (trial 4): a warning when
# an input was measured on a disturbed machine plus the pointer to --ab / --history (defect 4),
# the likely cause when ids do not match (13), --allow-build-change and the machine check of
# virtualization and memory (14), warnings for an interrupted input, an injected slowdown and a
# --thresholds pattern that matches nothing (15), and what to do next after a FAIL (16), in the
# table, the Markdown and the JUnit report; trial 9: a report over an input, the INVALID reason,
# the advice's --samples, a --history file counted twice; trial 17: a copy of an input as
# --history. Small inputs are written by mk below.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh

# mk OUT [key=value...]: a results file, one result per id (ids='a;b'), 9 samples around 1 ms
# times scale with relative spread cv; ctx.X=JSON sets context field X (dots for nesting);
# top.X=JSON sets a top-level field.
mk() {
    python3 - "$@" <<'PY'
import json, sys
out, args = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
ids = args.pop("ids", "k1/avx2/dp/t1/n=4096").split(";")
scale, cv = float(args.pop("scale", "1")), float(args.pop("cv", "0.01"))
ctx = {"cpu": {"vendor": "GenuineIntel", "model": "Xeon", "isa": ["avx2"], "cores": 2},
       "memory": {"total_bytes": 25276510208}, "virtualized": True, "hypervisor": "KVM",
       "compiler": "gcc 12.2.0", "cflags": "-O3", "threads": 1, "env": {}}
doc = {"schema": "nodescale/1", "context": ctx, "results": []}
for k, v in args.items():
    where, path = k.split(".", 1)
    node = ctx if where == "ctx" else doc
    *parents, leaf = path.split(".")
    for p in parents:
        node = node.setdefault(p, {})
    node[leaf] = json.loads(v)
offs = [0, 1, -1, 2, -2, 0.5, -0.5, 1.5, -1.5]
for i in ids:
    s = [1e-3 * scale * (1 + cv * o / 1.2) for o in offs]
    m = sum(s) / len(s)
    sd = (sum((x - m) ** 2 for x in s) / (len(s) - 1)) ** 0.5
    doc["results"].append({"id": i, "threads": 1, "samples_s": s, "status": "ok",
                           "time_s": {"median": sorted(s)[4], "cv": sd / m}})
json.dump(doc, open(out, "w"))
PY
}

gate() { # gate WANT_RC DESCRIPTION ARGS...: runs the gate, output in $tmp/out and $tmp/err
    local want=$1 what=$2; shift 2
    "$ns" gate "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc -ne "$want" ]; then
        fail "$what: exit $rc, want $want"; sed 's/^/  | /' "$tmp/out" "$tmp/err" | head -20; return 1
    fi
    echo "ok: $what"
}
has() { grep -qF -- "$2" "$1" || { fail "$3: no '$2' in $(basename "$1")"; sed 's/^/  | /' "$1" | head -20; }; }
hasnt() { ! grep -qF -- "$2" "$1" || fail "$3: unexpected '$2' in $(basename "$1")"; }

# --- 4: a disturbed input is named, and the verdict points to --ab / --history ----------------
mk "$tmp/quiet.json"
mk "$tmp/quiet_slow.json" scale=1.5
mk "$tmp/noisy.json" cv=0.3
mk "$tmp/noisy_slow.json" cv=0.3 scale=3
gate 1 "4: noisy inputs, +200%" "$tmp/noisy.json" "$tmp/noisy_slow.json" \
    --markdown "$tmp/g.md" --junit "$tmp/g.xml" --json "$tmp/g.json"
has "$tmp/out" "WARNING: the baseline $tmp/noisy.json was measured on a disturbed machine" "4: table warning"
has "$tmp/out" "drift on shared machines" "4: table verdict note"
has "$tmp/out" "use gate --ab OLD_BINARY NEW_BINARY, or --history" "4: table points to --ab"
has "$tmp/g.md" "**Warning:** the current" "4: markdown warning"
has "$tmp/g.md" "use gate --ab OLD_BINARY NEW_BINARY, or --history" "4: markdown note"
has "$tmp/g.xml" "<system-err>WARNING: the baseline" "4: junit warning"
has "$tmp/g.xml" "drift on shared machines" "4: junit note"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert any('disturbed' in w for w in d['warnings'])" "$tmp/g.json" \
    || fail "4: JSON report warnings"
gate 1 "4: quiet inputs, +50%: no disturbed warning" "$tmp/quiet.json" "$tmp/quiet_slow.json"
hasnt "$tmp/out" "disturbed" "4: quiet inputs"
mk "$tmp/clock.json" 'ctx.clock_probe={"changed": true, "detail": "clock fell from 2.5 to 1.2 GHz"}'
gate 0 "4: changed clock, same times" "$tmp/quiet.json" "$tmp/clock.json"
has "$tmp/out" "clock fell from 2.5 to 1.2 GHz" "4: clock warning"
has "$tmp/out" "drift on shared machines" "4: clock verdict note"

# --- 13: no id in common (or ids without partner): the likely cause and the ids ---------------
mk "$tmp/t2.json" ids=k1/avx2/dp/t2/n=4096 ctx.threads=2
gate 2 "13: other thread count" "$tmp/t2.json" "$tmp/quiet.json"
has "$tmp/err" "likely cause: thread count differs (baseline t2, current t1)" "13: threads"
has "$tmp/err" "context differs in threads" "13: context threads"
has "$tmp/err" "baseline ids: k1/avx2/dp/t2/n=4096; current ids: k1/avx2/dp/t1/n=4096" "13: ids"
mk "$tmp/isa.json" ids=k1/avx512/dp/t1/n=4096 'ctx.cpu.isa_selected="avx512"'
gate 2 "13: other ISA" "$tmp/isa.json" "$tmp/quiet.json"
has "$tmp/err" "ISA differs (baseline avx512, current avx2)" "13: ISA"
mk "$tmp/size.json" 'ids=k1/avx2/dp/t1/n=43008;k2/avx2/dp/t1/n=1;k3/avx2/dp/t1/n=1;k4/avx2/dp/t1/n=1'
gate 2 "13: other size" "$tmp/size.json" "$tmp/quiet.json"
has "$tmp/err" "size differs (baseline n=43008, current n=4096)" "13: size"
has "$tmp/err" "baseline ids: k1/avx2/dp/t1/n=43008, k2/avx2/dp/t1/n=1, k3/avx2/dp/t1/n=1 (+1 more)" "13: ids capped"
mk "$tmp/other.json" ids=zz/avx2/dp/t1/n=4096
gate 2 "13: other kernels" "$tmp/other.json" "$tmp/quiet.json"
has "$tmp/err" "likely cause: the two files ran different kernels" "13: kernels"
mk "$tmp/part_b.json" 'ids=k1/avx2/dp/t1/n=4096;k2/avx2/dp/t2/n=8'
mk "$tmp/part_c.json" 'ids=k1/avx2/dp/t1/n=4096;k2/avx2/dp/t1/n=8'
gate 0 "13: some ids without partner: compared, with a warning" "$tmp/part_b.json" "$tmp/part_c.json"
has "$tmp/out" "WARNING: 1 baseline and 1 current benchmark(s) have no partner: likely cause: thread count differs (baseline t2, current t1); only in baseline: k2/avx2/dp/t2/n=8; only in current: k2/avx2/dp/t1/n=8" "13: partial"

# --- 14: --allow-build-change; virtualization and memory are part of the machine -------------
mk "$tmp/cflags.json" 'ctx.cflags="-O2"' 'ctx.compiler="clang 16"'
gate 2 "14: another build is refused by default" "$tmp/cflags.json" "$tmp/quiet.json"
has "$tmp/err" "or pass --allow-build-change: only the build differs" "14: hint"
gate 0 "14: --allow-build-change accepts compiler and flags" --allow-build-change "$tmp/cflags.json" "$tmp/quiet.json" --markdown "$tmp/b.md"
has "$tmp/out" "allowed by --allow-build-change" "14: build differences listed"
has "$tmp/out" 'cflags: old "-O2", new "-O3"' "14: cflags listed"
hasnt "$tmp/out" "CONTEXT MISMATCH" "14: no mismatch warning"
has "$tmp/b.md" 'The two builds differ in' "14: markdown lists the build"
mk "$tmp/cpu.json" 'ctx.cflags="-O2"' 'ctx.cpu.model="EPYC"'
gate 2 "14: --allow-build-change still refuses another CPU" --allow-build-change "$tmp/cpu.json" "$tmp/quiet.json"
has "$tmp/err" "cpu.model differs" "14: cpu named"
hasnt "$tmp/err" "cflags" "14: the allowed build difference is not a reason"
mk "$tmp/mem.json" 'ctx.memory.total_bytes=1099511627776'
gate 2 "14: another memory size is another machine" "$tmp/mem.json" "$tmp/quiet.json"
has "$tmp/err" "memory.total_bytes differs (baseline 1099511627776, current 25276510208)" "14: memory"
gate 2 "14: ... also with --allow-build-change" --allow-build-change "$tmp/mem.json" "$tmp/quiet.json"
mk "$tmp/mem1.json" 'ctx.memory.total_bytes=25000000000'
gate 0 "14: MemTotal 1% apart (kernel reservations) is the same machine" "$tmp/mem1.json" "$tmp/quiet.json"
mk "$tmp/bare.json" 'ctx.virtualized=false' 'ctx.hypervisor=null'
gate 2 "14: bare metal against a VM is refused" "$tmp/bare.json" "$tmp/quiet.json"
has "$tmp/err" "virtualized differs (baseline false, current true)" "14: virtualized"
gate 2 "14: --allow-build-change applies to files, not --ab" --ab /bin/true /bin/true --allow-build-change

# --- 15: interrupted input, injected slowdown, a thresholds pattern matching nothing ----------
mk "$tmp/int.json" top.interrupted=true
gate 0 "15: interrupted baseline warned" "$tmp/int.json" "$tmp/quiet.json" --markdown "$tmp/i.md" --junit "$tmp/i.xml"
has "$tmp/out" "WARNING: the baseline $tmp/int.json was interrupted (\"interrupted\": true)" "15: interrupted"
has "$tmp/i.md" "was interrupted" "15: interrupted (markdown)"
has "$tmp/i.xml" "was interrupted" "15: interrupted (junit)"
mk "$tmp/inj.json" 'ctx.env={"NODESCALE_INJECT_SLOWDOWN": "k1:0.1"}'
gate 0 "15: injected slowdown warned" "$tmp/quiet.json" "$tmp/inj.json"
has "$tmp/out" "WARNING: the current $tmp/inj.json was recorded with NODESCALE_INJECT_SLOWDOWN=k1:0.1" "15: inject"
printf 'k1/*  10%%\nstream_tirad*  20%%\n' >"$tmp/thr.txt"
gate 0 "15: a thresholds pattern matching nothing warned" --thresholds "$tmp/thr.txt" "$tmp/quiet.json" "$tmp/quiet.json"
has "$tmp/out" "WARNING: --thresholds pattern 'stream_tirad*' matches no benchmark (ids look like 'k1/avx2/dp/t1/n=4096')" "15: pattern"
hasnt "$tmp/out" "pattern 'k1/*'" "15: a matching pattern is not warned"
gate 0 "15: --quiet: warnings on stderr" --quiet --thresholds "$tmp/thr.txt" "$tmp/quiet.json" "$tmp/quiet.json"
has "$tmp/err" "nodescale gate: warning: --thresholds pattern 'stream_tirad*'" "15: quiet"

# --- 16: a FAIL says what to do next; a PASS does not -----------------------------------------
gate 1 "16: a regression" "$tmp/quiet.json" "$tmp/quiet_slow.json" --markdown "$tmp/f.md" --junit "$tmp/f.xml" --json "$tmp/f.json"
has "$tmp/out" "next: confirm k1/avx2/dp/t1/n=4096 interleaved on one machine: nodescale gate --ab OLD_BINARY NEW_BINARY k1 -- --isa avx2 --threads 1 --n 4096" "16: table"
has "$tmp/out" "nodescale bench k1 --isa avx2 --threads 1 --n 4096 --samples 30" "16: table bench"
has "$tmp/f.md" "**What next:**" "16: markdown"
has "$tmp/f.md" "nodescale gate --ab OLD_BINARY NEW_BINARY k1 -- --isa avx2" "16: markdown command"
has "$tmp/f.xml" "next: confirm k1/avx2/dp/t1/n=4096" "16: junit"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 'gate --ab' in d['next_steps']" "$tmp/f.json" \
    || fail "16: JSON report next_steps"
mk "$tmp/gemm.json" ids=dgemm/avx2/dp/t2/m=256,n=128,k=64
mk "$tmp/gemm_slow.json" ids=dgemm/avx2/dp/t2/m=256,n=128,k=64 scale=1.5
gate 1 "16: the bench command carries every size" "$tmp/gemm.json" "$tmp/gemm_slow.json"
has "$tmp/out" "nodescale bench dgemm --isa avx2 --threads 2 --m 256 --n 128 --k 64 --samples 30" "16: gemm sizes"
cp tests/fixtures/gate/fake-bench.sh "$tmp/fake.sh"
printf '#!/usr/bin/env bash\nFAKE_SCALE=1.2 exec "$(dirname "$0")/fake.sh" "$@"\n' >"$tmp/slow.sh"
chmod +x "$tmp/fake.sh" "$tmp/slow.sh"
gate 1 "16: A/B, a 20% slower build" --ab "$tmp/fake.sh" "$tmp/slow.sh" k1 --rounds 6
has "$tmp/out" "next: reproduce k1/avx2/dp/t1 with each build: $tmp/fake.sh bench k1 --isa avx2 --threads 1 --samples 30, and the same with $tmp/slow.sh" "16: A/B"
mk "$tmp/esc.json" ids=$'k\x1b[31m/avx2/dp/t1/n=4096'
mk "$tmp/esc_slow.json" ids=$'k\x1b[31m/avx2/dp/t1/n=4096' scale=1.5 top.interrupted=true
gate 1 "16: an id with a control character" "$tmp/esc.json" "$tmp/esc_slow.json"
has "$tmp/out" 'next: confirm k\x1B[31m/avx2' "16: escaped id"
! grep -q $'\x1b' "$tmp/out" || fail "16: a raw control character reached the terminal"
printf 'zz\033[31m*  10%%\n' >"$tmp/thr_esc.txt"
gate 1 "15: ... and in --quiet warnings" --quiet --thresholds "$tmp/thr_esc.txt" "$tmp/esc.json" "$tmp/esc_slow.json"
has "$tmp/err" "pattern 'zz\x1B[31m*' matches no benchmark (ids look like 'k\x1B[31m/avx2" "15: escaped pattern and id"
! grep -q $'\x1b' "$tmp/err" || fail "15: a raw control character reached stderr"
gate 1 "16: nothing compared" --min-samples 20 "$tmp/quiet.json" "$tmp/quiet_slow.json"
has "$tmp/out" "next: see each row's note" "16: nothing compared"
gate 0 "16: a pass has no next step" "$tmp/quiet.json" "$tmp/quiet.json" --markdown "$tmp/p.md"
hasnt "$tmp/out" "next:" "16: pass (table)"
hasnt "$tmp/p.md" "What next" "16: pass (markdown)"

# --- trial 9: a report over an input (#1), the INVALID reason and its advice (#8), --samples
# of the advice at least --min-samples (#14), a --history file counted twice (#17) ------------
setkey() { # setkey FILE PYTHON_STATEMENT_ON_r: edits every result r of FILE in place
    python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
for r in d['results']: $2
json.dump(d, open(sys.argv[1], 'w'))" "$1"
}
cp "$tmp/quiet.json" "$tmp/c2.json"
cp "$tmp/quiet.json" "$tmp/b2.json"
cp "$tmp/quiet.json" "$tmp/h9.json"
gate 2 "t9 #1: --json over CURRENT" "$tmp/quiet.json" "$tmp/c2.json" --quiet --json "$tmp/c2.json"
has "$tmp/err" "error: --json $tmp/c2.json is an input (CURRENT $tmp/c2.json)" "t9 #1: --json"
gate 2 "t9 #1: --markdown over BASELINE, another path" "$tmp/b2.json" "$tmp/quiet.json" \
    --markdown "$tmp/./b2.json"
has "$tmp/err" "is an input (BASELINE" "t9 #1: --markdown"
gate 2 "t9 #1: --junit over a --history file" --history "$tmp/h9.json" "$tmp/b2.json" \
    "$tmp/quiet.json" --junit "$tmp/h9.json"
has "$tmp/err" "is an input (--history $tmp/h9.json)" "t9 #1: --junit"
for f in c2 b2 h9; do cmp -s "$tmp/$f.json" "$tmp/quiet.json" || fail "t9 #1: $f.json was overwritten"; done

mk "$tmp/tl.json"
setkey "$tmp/tl.json" "r['status'] = 'invalid: the OpenMP runtime gave 1 of 2 threads'; r['validated'] = True"
gate 1 "t9 #8: INVALID by a cut thread team" "$tmp/quiet.json" "$tmp/tl.json" --markdown "$tmp/tl.md"
has "$tmp/out" "1 INVALID (status invalid: the OpenMP runtime gave 1 of 2 threads)" "t9 #8: reason"
hasnt "$tmp/out" "check failed" "t9 #8: not a failed check"
has "$tmp/out" "next: remove the cause the INVALID row's status names" "t9 #8: advice"
hasnt "$tmp/out" "--samples" "t9 #8: no advice to take more samples"
hasnt "$tmp/tl.md" "failed its output check" "t9 #8: markdown"
mk "$tmp/wrong.json"
setkey "$tmp/wrong.json" "r['validated'] = False"
gate 1 "t9 #8: INVALID by a failed check" "$tmp/quiet.json" "$tmp/wrong.json"
has "$tmp/out" "1 INVALID (output check failed)" "t9 #8: check reason"
has "$tmp/out" "next: the current build computes k1/avx2/dp/t1/n=4096 wrongly" "t9 #8: check advice"

gate 1 "t9 #14: nothing compared at --min-samples 50" --min-samples 50 "$tmp/quiet.json" "$tmp/quiet_slow.json"
has "$tmp/out" "bench KERNEL --samples 50" "t9 #14: advice at --min-samples"

mk "$tmp/h1.json" scale=1.02
mk "$tmp/h2.json" scale=0.98
gate 0 "t9 #17: the baseline and h1 again as --history" --history "$tmp/quiet.json" --history "$tmp/h1.json" \
    --history "$tmp/h2.json" --history "$tmp/./h1.json" "$tmp/quiet.json" "$tmp/quiet.json"
has "$tmp/out" "WARNING: --history $tmp/quiet.json is the same file as the BASELINE: counted once" "t9 #17: baseline"
has "$tmp/out" "WARNING: --history $tmp/./h1.json is the same file as --history $tmp/h1.json: counted once" "t9 #17: twice"
has "$tmp/out" "over 3 runs" "t9 #17: 3 distinct runs"

# --- trial 11: a report over a run's, fleet's or another command's file (#2), CURRENT given as
# --history (#6) ---------------------------------------------------------------------------------
mkdir "$tmp/run"
mk "$tmp/run/results.json" ids='a;b'
echo '# nodescale report: vm' >"$tmp/run/report.md"
echo 'log' >"$tmp/run/run.log"
echo '{"schema":"nodescale/1","kind":"compare","rows":[]}' >"$tmp/compare.json"
echo '{"schema":"nodescale-cluster/1","points":[]}' >"$tmp/cluster.json"
cp -r "$tmp/run" "$tmp/run.before"
cp "$tmp/compare.json" "$tmp/compare.before"
cp "$tmp/cluster.json" "$tmp/cluster.before"
gate 2 "t11 #2: --json over a run's results.json" "$tmp/quiet.json" "$tmp/quiet.json" \
    --json "$tmp/run/results.json"
has "$tmp/err" "--json $tmp/run/results.json holds a run's results (2 results), not an earlier gate report" "t11 #2: --json"
gate 2 "t11 #2: --markdown over a run's report.md" "$tmp/quiet.json" "$tmp/quiet.json" \
    --markdown "$tmp/run/report.md"
has "$tmp/err" "holds a run's report (report.md)" "t11 #2: --markdown"
gate 2 "t11 #2: --junit over a run's run.log" "$tmp/quiet.json" "$tmp/quiet.json" --junit "$tmp/run/run.log"
has "$tmp/err" "--junit $tmp/run/run.log holds other text" "t11 #2: --junit"
gate 2 "t11 #2: --json over compare.json" "$tmp/quiet.json" "$tmp/quiet.json" --json "$tmp/compare.json"
has "$tmp/err" "holds a compare report" "t11 #2: compare"
gate 2 "t11 #2: --json over a cluster report" "$tmp/quiet.json" "$tmp/quiet.json" --json "$tmp/cluster.json"
has "$tmp/err" "holds a cluster report" "t11 #2: cluster"
diff -r "$tmp/run" "$tmp/run.before" >/dev/null || fail "t11 #2: the run's folder changed"
cmp -s "$tmp/compare.json" "$tmp/compare.before" || fail "t11 #2: compare.json changed"
cmp -s "$tmp/cluster.json" "$tmp/cluster.before" || fail "t11 #2: the cluster report changed"
# Its own earlier reports are rewritten; one kind is not written over another.
gate 0 "t11 #2: the reports" "$tmp/quiet.json" "$tmp/quiet.json" --json "$tmp/g.json" --junit "$tmp/g.xml" \
    --markdown "$tmp/g.md"
gate 0 "t11 #2: the reports again" "$tmp/quiet.json" "$tmp/quiet.json" --json "$tmp/g.json" \
    --junit "$tmp/g.xml" --markdown "$tmp/g.md"
gate 2 "t11 #2: --markdown over a JUnit report" "$tmp/quiet.json" "$tmp/quiet.json" --markdown "$tmp/g.xml"
has "$tmp/err" "holds a gate JUnit report, not an earlier gate Markdown report" "t11 #2: kinds"

cp "$tmp/quiet.json" "$tmp/cur.json"
ln -s "$tmp/cur.json" "$tmp/cur-link.json"
gate 0 "t11 #6: CURRENT as --history (through a link)" --history "$tmp/cur-link.json" \
    --history "$tmp/h1.json" --history "$tmp/h2.json" "$tmp/quiet.json" "$tmp/cur.json"
has "$tmp/out" "WARNING: --history $tmp/cur-link.json is the same file as the CURRENT: not counted" "t11 #6: warning"
has "$tmp/out" "over 3 runs" "t11 #6: the baseline and 2 history runs"

# --- trial 17 #11: a copy of CURRENT (a CI artifact), of a --history file, or the baseline's run
# written again (same context.date and samples, other bytes) is no further baseline run ----------
mk "$tmp/g_base.json" ctx.date='"2026-11-29T09:00:00Z"'
mk "$tmp/g_h1.json" scale=1.30 ctx.date='"2026-11-29T10:00:00Z"'
mk "$tmp/g_cur.json" scale=1.45 ctx.date='"2026-11-29T11:00:00Z"'
cp "$tmp/g_cur.json" "$tmp/g_curcopy.json"
cp "$tmp/g_h1.json" "$tmp/g_h1copy.json"
python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], 'w'), indent=1)" \
  "$tmp/g_base.json" "$tmp/g_base_again.json"
cmp -s "$tmp/g_base.json" "$tmp/g_base_again.json" && fail "t17 #11: the rewritten baseline has the same bytes"
gate 1 "t17 #11: a copy of CURRENT as --history" "$tmp/g_base.json" "$tmp/g_cur.json" \
    --history "$tmp/g_h1.json" --history "$tmp/g_curcopy.json" --markdown "$tmp/g17.md"
has "$tmp/out" "WARNING: --history $tmp/g_curcopy.json is a copy (the same bytes) of the CURRENT: not counted" "t17 #11: copy of CURRENT"
hasnt "$tmp/out" "between-run drift" "t17 #11: no drift from 2 runs"
has "$tmp/g17.md" "is a copy (the same bytes) of the CURRENT: not counted" "t17 #11: markdown"
gate 1 "t17 #11: a copy of --history, the baseline's run rewritten" "$tmp/g_base.json" "$tmp/g_cur.json" \
    --history "$tmp/g_h1.json" --history "$tmp/g_h1copy.json" --history "$tmp/g_base_again.json"
has "$tmp/out" "WARNING: --history $tmp/g_h1copy.json is a copy (the same bytes) of --history $tmp/g_h1.json: counted once" "t17 #11: copy of history"
has "$tmp/out" "WARNING: --history $tmp/g_base_again.json is the same run (the same context.date and samples) as the BASELINE: counted once" "t17 #11: same run"
hasnt "$tmp/out" "between-run drift" "t17 #11: 2 distinct runs"
"$ns" gate --help >"$tmp/help" 2>&1
has "$tmp/help" "a copy" "t17 #11: --help"

# trial 19d #20: a fleet.json names what to pass instead, as cluster and roofline do.
echo '{"schema": "nodescale/1", "kind": "fleet", "nodes": []}' >"$tmp/fleet.json"
"$ns" gate "$tmp/fleet.json" "$tmp/fleet.json" >"$tmp/fl.out" 2>&1
has "$tmp/fl.out" "nodes/<node>/results.json" "t19d #20: gate on a fleet.json"

[ $fails -eq 0 ] && echo "gate_hints: all passed" || echo "gate_hints: $fails failed"
[ $fails -eq 0 ]
