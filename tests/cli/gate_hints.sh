#!/usr/bin/env bash
# CLI tests of what `nodescale gate` tells the user beyond the verdict (trial 4): a warning when
# an input was measured on a disturbed machine plus the pointer to --ab / --history (defect 4),
# the likely cause when ids do not match (13), --allow-build-change and the machine check of
# virtualization and memory (14), warnings for an interrupted input, an injected slowdown and a
# --thresholds pattern that matches nothing (15), and what to do next after a FAIL (16), in the
# table, the Markdown and the JUnit report; trial 9: a report over an input, the INVALID reason,
# the advice's --samples, a --history file counted twice. Small inputs are written by mk below.
set -u
cd "$(dirname "$0")/../.."
NS=${NS:-bin/nodescale}
[ -x $NS ] || { echo "skip: $NS not built"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

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

gate() { # gate WANT_RC DESCRIPTION ARGS...: runs the gate, output in $T/out and $T/err
    local want=$1 what=$2; shift 2
    "$NS" gate "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc -ne "$want" ]; then
        bad "$what: exit $rc, want $want"; sed 's/^/  | /' "$T/out" "$T/err" | head -20; return 1
    fi
    echo "ok: $what"
}
has() { grep -qF -- "$2" "$1" || { bad "$3: no '$2' in $(basename "$1")"; sed 's/^/  | /' "$1" | head -20; }; }
hasnt() { ! grep -qF -- "$2" "$1" || bad "$3: unexpected '$2' in $(basename "$1")"; }

# --- 4: a disturbed input is named, and the verdict points to --ab / --history ----------------
mk "$T/quiet.json"
mk "$T/quiet_slow.json" scale=1.5
mk "$T/noisy.json" cv=0.3
mk "$T/noisy_slow.json" cv=0.3 scale=3
gate 1 "4: noisy inputs, +200%" "$T/noisy.json" "$T/noisy_slow.json" \
    --markdown "$T/g.md" --junit "$T/g.xml" --json "$T/g.json"
has "$T/out" "WARNING: the baseline $T/noisy.json was measured on a disturbed machine" "4: table warning"
has "$T/out" "drift on shared machines" "4: table verdict note"
has "$T/out" "use gate --ab OLD_BINARY NEW_BINARY, or --history" "4: table points to --ab"
has "$T/g.md" "**Warning:** the current" "4: markdown warning"
has "$T/g.md" "use gate --ab OLD_BINARY NEW_BINARY, or --history" "4: markdown note"
has "$T/g.xml" "<system-err>WARNING: the baseline" "4: junit warning"
has "$T/g.xml" "drift on shared machines" "4: junit note"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert any('disturbed' in w for w in d['warnings'])" "$T/g.json" \
    || bad "4: JSON report warnings"
gate 1 "4: quiet inputs, +50%: no disturbed warning" "$T/quiet.json" "$T/quiet_slow.json"
hasnt "$T/out" "disturbed" "4: quiet inputs"
mk "$T/clock.json" 'ctx.clock_probe={"changed": true, "detail": "clock fell from 2.5 to 1.2 GHz"}'
gate 0 "4: changed clock, same times" "$T/quiet.json" "$T/clock.json"
has "$T/out" "clock fell from 2.5 to 1.2 GHz" "4: clock warning"
has "$T/out" "drift on shared machines" "4: clock verdict note"

# --- 13: no id in common (or ids without partner): the likely cause and the ids ---------------
mk "$T/t2.json" ids=k1/avx2/dp/t2/n=4096 ctx.threads=2
gate 2 "13: other thread count" "$T/t2.json" "$T/quiet.json"
has "$T/err" "likely cause: thread count differs (baseline t2, current t1)" "13: threads"
has "$T/err" "context differs in threads" "13: context threads"
has "$T/err" "baseline ids: k1/avx2/dp/t2/n=4096; current ids: k1/avx2/dp/t1/n=4096" "13: ids"
mk "$T/isa.json" ids=k1/avx512/dp/t1/n=4096 'ctx.cpu.isa_selected="avx512"'
gate 2 "13: other ISA" "$T/isa.json" "$T/quiet.json"
has "$T/err" "ISA differs (baseline avx512, current avx2)" "13: ISA"
mk "$T/size.json" 'ids=k1/avx2/dp/t1/n=43008;k2/avx2/dp/t1/n=1;k3/avx2/dp/t1/n=1;k4/avx2/dp/t1/n=1'
gate 2 "13: other size" "$T/size.json" "$T/quiet.json"
has "$T/err" "size differs (baseline n=43008, current n=4096)" "13: size"
has "$T/err" "baseline ids: k1/avx2/dp/t1/n=43008, k2/avx2/dp/t1/n=1, k3/avx2/dp/t1/n=1 (+1 more)" "13: ids capped"
mk "$T/other.json" ids=zz/avx2/dp/t1/n=4096
gate 2 "13: other kernels" "$T/other.json" "$T/quiet.json"
has "$T/err" "likely cause: the two files ran different kernels" "13: kernels"
mk "$T/part_b.json" 'ids=k1/avx2/dp/t1/n=4096;k2/avx2/dp/t2/n=8'
mk "$T/part_c.json" 'ids=k1/avx2/dp/t1/n=4096;k2/avx2/dp/t1/n=8'
gate 0 "13: some ids without partner: compared, with a warning" "$T/part_b.json" "$T/part_c.json"
has "$T/out" "WARNING: 1 baseline and 1 current benchmark(s) have no partner: likely cause: thread count differs (baseline t2, current t1); only in baseline: k2/avx2/dp/t2/n=8; only in current: k2/avx2/dp/t1/n=8" "13: partial"

# --- 14: --allow-build-change; virtualization and memory are part of the machine -------------
mk "$T/cflags.json" 'ctx.cflags="-O2"' 'ctx.compiler="clang 16"'
gate 2 "14: another build is refused by default" "$T/cflags.json" "$T/quiet.json"
has "$T/err" "or pass --allow-build-change: only the build differs" "14: hint"
gate 0 "14: --allow-build-change accepts compiler and flags" --allow-build-change "$T/cflags.json" "$T/quiet.json" --markdown "$T/b.md"
has "$T/out" "allowed by --allow-build-change" "14: build differences listed"
has "$T/out" 'cflags: old "-O2", new "-O3"' "14: cflags listed"
hasnt "$T/out" "CONTEXT MISMATCH" "14: no mismatch warning"
has "$T/b.md" 'The two builds differ in' "14: markdown lists the build"
mk "$T/cpu.json" 'ctx.cflags="-O2"' 'ctx.cpu.model="EPYC"'
gate 2 "14: --allow-build-change still refuses another CPU" --allow-build-change "$T/cpu.json" "$T/quiet.json"
has "$T/err" "cpu.model differs" "14: cpu named"
hasnt "$T/err" "cflags" "14: the allowed build difference is not a reason"
mk "$T/mem.json" 'ctx.memory.total_bytes=1099511627776'
gate 2 "14: another memory size is another machine" "$T/mem.json" "$T/quiet.json"
has "$T/err" "memory.total_bytes differs (baseline 1099511627776, current 25276510208)" "14: memory"
gate 2 "14: ... also with --allow-build-change" --allow-build-change "$T/mem.json" "$T/quiet.json"
mk "$T/mem1.json" 'ctx.memory.total_bytes=25000000000'
gate 0 "14: MemTotal 1% apart (kernel reservations) is the same machine" "$T/mem1.json" "$T/quiet.json"
mk "$T/bare.json" 'ctx.virtualized=false' 'ctx.hypervisor=null'
gate 2 "14: bare metal against a VM is refused" "$T/bare.json" "$T/quiet.json"
has "$T/err" "virtualized differs (baseline false, current true)" "14: virtualized"
gate 2 "14: --allow-build-change applies to files, not --ab" --ab /bin/true /bin/true --allow-build-change

# --- 15: interrupted input, injected slowdown, a thresholds pattern matching nothing ----------
mk "$T/int.json" top.interrupted=true
gate 0 "15: interrupted baseline warned" "$T/int.json" "$T/quiet.json" --markdown "$T/i.md" --junit "$T/i.xml"
has "$T/out" "WARNING: the baseline $T/int.json was interrupted (\"interrupted\": true)" "15: interrupted"
has "$T/i.md" "was interrupted" "15: interrupted (markdown)"
has "$T/i.xml" "was interrupted" "15: interrupted (junit)"
mk "$T/inj.json" 'ctx.env={"NODESCALE_INJECT_SLOWDOWN": "k1:0.1"}'
gate 0 "15: injected slowdown warned" "$T/quiet.json" "$T/inj.json"
has "$T/out" "WARNING: the current $T/inj.json was recorded with NODESCALE_INJECT_SLOWDOWN=k1:0.1" "15: inject"
printf 'k1/*  10%%\nstream_tirad*  20%%\n' >"$T/thr.txt"
gate 0 "15: a thresholds pattern matching nothing warned" --thresholds "$T/thr.txt" "$T/quiet.json" "$T/quiet.json"
has "$T/out" "WARNING: --thresholds pattern 'stream_tirad*' matches no benchmark (ids look like 'k1/avx2/dp/t1/n=4096')" "15: pattern"
hasnt "$T/out" "pattern 'k1/*'" "15: a matching pattern is not warned"
gate 0 "15: --quiet: warnings on stderr" --quiet --thresholds "$T/thr.txt" "$T/quiet.json" "$T/quiet.json"
has "$T/err" "nodescale gate: warning: --thresholds pattern 'stream_tirad*'" "15: quiet"

# --- 16: a FAIL says what to do next; a PASS does not -----------------------------------------
gate 1 "16: a regression" "$T/quiet.json" "$T/quiet_slow.json" --markdown "$T/f.md" --junit "$T/f.xml" --json "$T/f.json"
has "$T/out" "next: confirm k1/avx2/dp/t1/n=4096 interleaved on one machine: nodescale gate --ab OLD_BINARY NEW_BINARY k1 -- --isa avx2 --threads 1 --n 4096" "16: table"
has "$T/out" "nodescale bench k1 --isa avx2 --threads 1 --n 4096 --samples 30" "16: table bench"
has "$T/f.md" "**What next:**" "16: markdown"
has "$T/f.md" "nodescale gate --ab OLD_BINARY NEW_BINARY k1 -- --isa avx2" "16: markdown command"
has "$T/f.xml" "next: confirm k1/avx2/dp/t1/n=4096" "16: junit"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 'gate --ab' in d['next_steps']" "$T/f.json" \
    || bad "16: JSON report next_steps"
mk "$T/gemm.json" ids=dgemm/avx2/dp/t2/m=256,n=128,k=64
mk "$T/gemm_slow.json" ids=dgemm/avx2/dp/t2/m=256,n=128,k=64 scale=1.5
gate 1 "16: the bench command carries every size" "$T/gemm.json" "$T/gemm_slow.json"
has "$T/out" "nodescale bench dgemm --isa avx2 --threads 2 --m 256 --n 128 --k 64 --samples 30" "16: gemm sizes"
cp tests/fixtures/gate/fake-bench.sh "$T/fake.sh"
printf '#!/usr/bin/env bash\nFAKE_SCALE=1.2 exec "$(dirname "$0")/fake.sh" "$@"\n' >"$T/slow.sh"
chmod +x "$T/fake.sh" "$T/slow.sh"
gate 1 "16: A/B, a 20% slower build" --ab "$T/fake.sh" "$T/slow.sh" k1 --rounds 6
has "$T/out" "next: reproduce k1/avx2/dp/t1 with each build: $T/fake.sh bench k1 --isa avx2 --threads 1 --samples 30, and the same with $T/slow.sh" "16: A/B"
mk "$T/esc.json" ids=$'k\x1b[31m/avx2/dp/t1/n=4096'
mk "$T/esc_slow.json" ids=$'k\x1b[31m/avx2/dp/t1/n=4096' scale=1.5 top.interrupted=true
gate 1 "16: an id with a control character" "$T/esc.json" "$T/esc_slow.json"
has "$T/out" 'next: confirm k\x1B[31m/avx2' "16: escaped id"
! grep -q $'\x1b' "$T/out" || bad "16: a raw control character reached the terminal"
printf 'zz\033[31m*  10%%\n' >"$T/thr_esc.txt"
gate 1 "15: ... and in --quiet warnings" --quiet --thresholds "$T/thr_esc.txt" "$T/esc.json" "$T/esc_slow.json"
has "$T/err" "pattern 'zz\x1B[31m*' matches no benchmark (ids look like 'k\x1B[31m/avx2" "15: escaped pattern and id"
! grep -q $'\x1b' "$T/err" || bad "15: a raw control character reached stderr"
gate 1 "16: nothing compared" --min-samples 20 "$T/quiet.json" "$T/quiet_slow.json"
has "$T/out" "next: see each row's note" "16: nothing compared"
gate 0 "16: a pass has no next step" "$T/quiet.json" "$T/quiet.json" --markdown "$T/p.md"
hasnt "$T/out" "next:" "16: pass (table)"
hasnt "$T/p.md" "What next" "16: pass (markdown)"

# --- trial 9: a report over an input (#1), the INVALID reason and its advice (#8), --samples
# of the advice at least --min-samples (#14), a --history file counted twice (#17) ------------
setkey() { # setkey FILE PYTHON_STATEMENT_ON_r: edits every result r of FILE in place
    python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
for r in d['results']: $2
json.dump(d, open(sys.argv[1], 'w'))" "$1"
}
cp "$T/quiet.json" "$T/c2.json"
cp "$T/quiet.json" "$T/b2.json"
cp "$T/quiet.json" "$T/h9.json"
gate 2 "t9 #1: --json over CURRENT" "$T/quiet.json" "$T/c2.json" --quiet --json "$T/c2.json"
has "$T/err" "error: --json $T/c2.json is an input (CURRENT $T/c2.json)" "t9 #1: --json"
gate 2 "t9 #1: --markdown over BASELINE, another path" "$T/b2.json" "$T/quiet.json" \
    --markdown "$T/./b2.json"
has "$T/err" "is an input (BASELINE" "t9 #1: --markdown"
gate 2 "t9 #1: --junit over a --history file" --history "$T/h9.json" "$T/b2.json" \
    "$T/quiet.json" --junit "$T/h9.json"
has "$T/err" "is an input (--history $T/h9.json)" "t9 #1: --junit"
for f in c2 b2 h9; do cmp -s "$T/$f.json" "$T/quiet.json" || bad "t9 #1: $f.json was overwritten"; done

mk "$T/tl.json"
setkey "$T/tl.json" "r['status'] = 'invalid: the OpenMP runtime gave 1 of 2 threads'; r['validated'] = True"
gate 1 "t9 #8: INVALID by a cut thread team" "$T/quiet.json" "$T/tl.json" --markdown "$T/tl.md"
has "$T/out" "1 INVALID (status invalid: the OpenMP runtime gave 1 of 2 threads)" "t9 #8: reason"
hasnt "$T/out" "check failed" "t9 #8: not a failed check"
has "$T/out" "next: remove the cause the INVALID row's status names" "t9 #8: advice"
hasnt "$T/out" "--samples" "t9 #8: no advice to take more samples"
hasnt "$T/tl.md" "failed its output check" "t9 #8: markdown"
mk "$T/wrong.json"
setkey "$T/wrong.json" "r['validated'] = False"
gate 1 "t9 #8: INVALID by a failed check" "$T/quiet.json" "$T/wrong.json"
has "$T/out" "1 INVALID (output check failed)" "t9 #8: check reason"
has "$T/out" "next: the current build computes k1/avx2/dp/t1/n=4096 wrongly" "t9 #8: check advice"

gate 1 "t9 #14: nothing compared at --min-samples 50" --min-samples 50 "$T/quiet.json" "$T/quiet_slow.json"
has "$T/out" "bench KERNEL --samples 50" "t9 #14: advice at --min-samples"

mk "$T/h1.json" scale=1.02
mk "$T/h2.json" scale=0.98
gate 0 "t9 #17: the baseline and h1 again as --history" --history "$T/quiet.json" --history "$T/h1.json" \
    --history "$T/h2.json" --history "$T/./h1.json" "$T/quiet.json" "$T/quiet.json"
has "$T/out" "WARNING: --history $T/quiet.json is the same file as the BASELINE: counted once" "t9 #17: baseline"
has "$T/out" "WARNING: --history $T/./h1.json is the same file as --history $T/h1.json: counted once" "t9 #17: twice"
has "$T/out" "over 3 runs" "t9 #17: 3 distinct runs"

# --- trial 11: a report over a run's, fleet's or another command's file (#2), CURRENT given as
# --history (#6) ---------------------------------------------------------------------------------
mkdir "$T/run"
mk "$T/run/results.json" ids='a;b'
echo '# nodescale report: vm' >"$T/run/report.md"
echo 'log' >"$T/run/run.log"
echo '{"schema":"nodescale/1","kind":"compare","rows":[]}' >"$T/compare.json"
echo '{"schema":"nodescale-cluster/1","points":[]}' >"$T/cluster.json"
cp -r "$T/run" "$T/run.before"
cp "$T/compare.json" "$T/compare.before"
cp "$T/cluster.json" "$T/cluster.before"
gate 2 "t11 #2: --json over a run's results.json" "$T/quiet.json" "$T/quiet.json" \
    --json "$T/run/results.json"
has "$T/err" "--json $T/run/results.json holds a run's results (2 results), not an earlier gate report" "t11 #2: --json"
gate 2 "t11 #2: --markdown over a run's report.md" "$T/quiet.json" "$T/quiet.json" \
    --markdown "$T/run/report.md"
has "$T/err" "holds a run's report (report.md)" "t11 #2: --markdown"
gate 2 "t11 #2: --junit over a run's run.log" "$T/quiet.json" "$T/quiet.json" --junit "$T/run/run.log"
has "$T/err" "--junit $T/run/run.log holds other text" "t11 #2: --junit"
gate 2 "t11 #2: --json over compare.json" "$T/quiet.json" "$T/quiet.json" --json "$T/compare.json"
has "$T/err" "holds a compare report" "t11 #2: compare"
gate 2 "t11 #2: --json over a cluster report" "$T/quiet.json" "$T/quiet.json" --json "$T/cluster.json"
has "$T/err" "holds a cluster report" "t11 #2: cluster"
diff -r "$T/run" "$T/run.before" >/dev/null || bad "t11 #2: the run's folder changed"
cmp -s "$T/compare.json" "$T/compare.before" || bad "t11 #2: compare.json changed"
cmp -s "$T/cluster.json" "$T/cluster.before" || bad "t11 #2: the cluster report changed"
# Its own earlier reports are rewritten; one kind is not written over another.
gate 0 "t11 #2: the reports" "$T/quiet.json" "$T/quiet.json" --json "$T/g.json" --junit "$T/g.xml" \
    --markdown "$T/g.md"
gate 0 "t11 #2: the reports again" "$T/quiet.json" "$T/quiet.json" --json "$T/g.json" \
    --junit "$T/g.xml" --markdown "$T/g.md"
gate 2 "t11 #2: --markdown over a JUnit report" "$T/quiet.json" "$T/quiet.json" --markdown "$T/g.xml"
has "$T/err" "holds a gate JUnit report, not an earlier gate Markdown report" "t11 #2: kinds"

cp "$T/quiet.json" "$T/cur.json"
ln -s "$T/cur.json" "$T/cur-link.json"
gate 0 "t11 #6: CURRENT as --history (through a link)" --history "$T/cur-link.json" \
    --history "$T/h1.json" --history "$T/h2.json" "$T/quiet.json" "$T/cur.json"
has "$T/out" "WARNING: --history $T/cur-link.json is the same file as the CURRENT: not counted" "t11 #6: warning"
has "$T/out" "over 3 runs" "t11 #6: the baseline and 2 history runs"

[ $fails -eq 0 ] && echo "gate_hints: all passed" || echo "gate_hints: $fails failed"
[ $fails -eq 0 ]
