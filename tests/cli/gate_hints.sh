#!/usr/bin/env bash
# CLI tests of what `nodescale gate` tells the user beyond the verdict, in the table, the
# Markdown, the JUnit and the JSON report: a warning when an input was measured on a disturbed
# machine, with the pointer to --ab / --history; the likely cause when ids do not match;
# --allow-build-change, and virtualization and memory as part of the machine; warnings for an
# interrupted input, an injected slowdown and a --thresholds pattern that matches nothing; what
# to do next after a FAIL (the INVALID reason and its advice among it); no report written over an
# input or over a run's, compare's or cluster's file; a --history file that repeats an input (the
# same file, a copy, the same run) counted once. Small inputs are written by mk below.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/gate.sh

# --- a disturbed input is named, and the verdict points to --ab / --history -------------------
mk "$tmp/quiet.json"
mk "$tmp/quiet_slow.json" scale=1.5
mk "$tmp/noisy.json" cv=0.3
mk "$tmp/noisy_slow.json" cv=0.3 scale=3
gate 1 "noisy inputs, 200% slower: a regression" "$tmp/noisy.json" "$tmp/noisy_slow.json" \
    --markdown "$tmp/g.md" --junit "$tmp/g.xml" --json "$tmp/g.json"
has "$tmp/out" "WARNING: the baseline $tmp/noisy.json was measured on a disturbed machine" "the table names the disturbed baseline"
has "$tmp/out" "drift on shared machines" "the table verdict warns of drift on shared machines"
has "$tmp/out" "use gate --ab OLD_BINARY NEW_BINARY, or --history" "the table verdict points to --ab and --history"
has "$tmp/g.md" "**Warning:** the current" "the Markdown report names the disturbed current input"
has "$tmp/g.md" "use gate --ab OLD_BINARY NEW_BINARY, or --history" "the Markdown report points to --ab and --history"
has "$tmp/g.xml" "<system-err>WARNING: the baseline" "the JUnit report carries the disturbed warning"
has "$tmp/g.xml" "drift on shared machines" "the JUnit report warns of drift on shared machines"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert any('disturbed' in w for w in d['warnings'])" "$tmp/g.json" \
    || fail "the JSON report lists the disturbed warning"
gate 1 "quiet inputs, 50% slower: a regression" "$tmp/quiet.json" "$tmp/quiet_slow.json"
hasnt "$tmp/out" "disturbed" "quiet inputs are not called disturbed"
mk "$tmp/clock.json" 'ctx.clock_probe={"changed": true, "detail": "clock fell from 2.5 to 1.2 GHz"}'
gate 0 "a clock change, same times: a pass" "$tmp/quiet.json" "$tmp/clock.json"
has "$tmp/out" "clock fell from 2.5 to 1.2 GHz" "a clock change is warned with its detail"
has "$tmp/out" "drift on shared machines" "a clock change adds the drift note to the verdict"

# --- no id in common (or ids without partner): the likely cause and the ids ------------------
mk "$tmp/t2.json" ids=k1/avx2/dp/t2/n=4096 ctx.threads=2
gate 2 "no id in common, other thread count: refused" "$tmp/t2.json" "$tmp/quiet.json"
has "$tmp/err" "likely cause: thread count differs (baseline t2, current t1)" "the likely cause names the thread counts"
has "$tmp/err" "context differs in threads" "the context difference in threads is named"
has "$tmp/err" "baseline ids: k1/avx2/dp/t2/n=4096; current ids: k1/avx2/dp/t1/n=4096" "both files' ids are listed"
mk "$tmp/isa.json" ids=k1/avx512/dp/t1/n=4096 'ctx.cpu.isa_selected="avx512"'
gate 2 "no id in common, other ISA: refused" "$tmp/isa.json" "$tmp/quiet.json"
has "$tmp/err" "ISA differs (baseline avx512, current avx2)" "the likely cause names the ISAs"
mk "$tmp/size.json" 'ids=k1/avx2/dp/t1/n=43008;k2/avx2/dp/t1/n=1;k3/avx2/dp/t1/n=1;k4/avx2/dp/t1/n=1'
gate 2 "no id in common, other size: refused" "$tmp/size.json" "$tmp/quiet.json"
has "$tmp/err" "size differs (baseline n=43008, current n=4096)" "the likely cause names the sizes"
has "$tmp/err" "baseline ids: k1/avx2/dp/t1/n=43008, k2/avx2/dp/t1/n=1, k3/avx2/dp/t1/n=1 (+1 more)" "the id list stops after 3 ids with a count"
mk "$tmp/other.json" ids=zz/avx2/dp/t1/n=4096
gate 2 "no id in common, other kernels: refused" "$tmp/other.json" "$tmp/quiet.json"
has "$tmp/err" "likely cause: the two files ran different kernels" "the likely cause is different kernels"
mk "$tmp/part_b.json" 'ids=k1/avx2/dp/t1/n=4096;k2/avx2/dp/t2/n=8'
mk "$tmp/part_c.json" 'ids=k1/avx2/dp/t1/n=4096;k2/avx2/dp/t1/n=8'
gate 0 "some ids without partner: compared, with a warning" "$tmp/part_b.json" "$tmp/part_c.json"
has "$tmp/out" "WARNING: 1 baseline and 1 current benchmark(s) have no partner: likely cause: thread count differs (baseline t2, current t1); only in baseline: k2/avx2/dp/t2/n=8; only in current: k2/avx2/dp/t1/n=8" "the warning names the ids without partner and the likely cause"

# --- --allow-build-change; virtualization and memory are part of the machine -----------------
mk "$tmp/cflags.json" 'ctx.cflags="-O2"' 'ctx.compiler="clang 16"'
gate 2 "another build is refused by default" "$tmp/cflags.json" "$tmp/quiet.json"
has "$tmp/err" "or pass --allow-build-change: only the build differs" "the refusal points to --allow-build-change"
gate 0 "--allow-build-change accepts another compiler and flags" --allow-build-change "$tmp/cflags.json" "$tmp/quiet.json" --markdown "$tmp/b.md"
has "$tmp/out" "allowed by --allow-build-change" "the table says the build differences were allowed"
has "$tmp/out" 'cflags: old "-O2", new "-O3"' "the table lists the cflags difference"
hasnt "$tmp/out" "CONTEXT MISMATCH" "an allowed build difference is no context mismatch"
has "$tmp/b.md" 'The two builds differ in' "the Markdown report lists the build differences"
mk "$tmp/cpu.json" 'ctx.cflags="-O2"' 'ctx.cpu.model="EPYC"'
gate 2 "--allow-build-change still refuses another CPU" --allow-build-change "$tmp/cpu.json" "$tmp/quiet.json"
has "$tmp/err" "cpu.model differs" "the refusal names cpu.model"
hasnt "$tmp/err" "cflags" "the refusal does not name the allowed cflags"
mk "$tmp/mem.json" 'ctx.memory.total_bytes=1099511627776'
gate 2 "another memory size is another machine: refused" "$tmp/mem.json" "$tmp/quiet.json"
has "$tmp/err" "memory.total_bytes differs (baseline 1099511627776, current 25276510208)" "the refusal names memory.total_bytes"
gate 2 "another memory size is refused with --allow-build-change too" --allow-build-change "$tmp/mem.json" "$tmp/quiet.json"
mk "$tmp/mem1.json" 'ctx.memory.total_bytes=25000000000'
gate 0 "MemTotal 1% apart (kernel reservations) is the same machine" "$tmp/mem1.json" "$tmp/quiet.json"
mk "$tmp/bare.json" 'ctx.virtualized=false' 'ctx.hypervisor=null'
gate 2 "bare metal against a VM is refused" "$tmp/bare.json" "$tmp/quiet.json"
has "$tmp/err" "virtualized differs (baseline false, current true)" "the refusal names virtualized"
gate 2 "--allow-build-change with --ab is refused" --ab /bin/true /bin/true --allow-build-change

# --- interrupted input, injected slowdown, a thresholds pattern matching nothing --------------
mk "$tmp/int.json" top.interrupted=true
gate 0 "an interrupted baseline: compared, with a warning" "$tmp/int.json" "$tmp/quiet.json" --markdown "$tmp/i.md" --junit "$tmp/i.xml"
has "$tmp/out" "WARNING: the baseline $tmp/int.json was interrupted (\"interrupted\": true)" "the table warns of the interrupted baseline"
has "$tmp/i.md" "was interrupted" "the Markdown report warns of the interrupted baseline"
has "$tmp/i.xml" "was interrupted" "the JUnit report warns of the interrupted baseline"
mk "$tmp/inj.json" 'ctx.env={"NODESCALE_INJECT_SLOWDOWN": "k1:0.1"}'
gate 0 "an injected slowdown: compared, with a warning" "$tmp/quiet.json" "$tmp/inj.json"
has "$tmp/out" "WARNING: the current $tmp/inj.json was recorded with NODESCALE_INJECT_SLOWDOWN=k1:0.1" "the warning names NODESCALE_INJECT_SLOWDOWN"
printf 'k1/*  10%%\nstream_tirad*  20%%\n' >"$tmp/thr.txt"
gate 0 "a --thresholds pattern matching nothing: compared, with a warning" --thresholds "$tmp/thr.txt" "$tmp/quiet.json" "$tmp/quiet.json"
has "$tmp/out" "WARNING: --thresholds pattern 'stream_tirad*' matches no benchmark (ids look like 'k1/avx2/dp/t1/n=4096')" "the warning names the pattern and an example id"
hasnt "$tmp/out" "pattern 'k1/*'" "a matching --thresholds pattern is not warned"
gate 0 "--quiet: warnings go to stderr" --quiet --thresholds "$tmp/thr.txt" "$tmp/quiet.json" "$tmp/quiet.json"
has "$tmp/err" "nodescale gate: warning: --thresholds pattern 'stream_tirad*'" "the --quiet warning is on stderr"

# --- a FAIL says what to do next; a PASS does not ---------------------------------------------
gate 1 "a regression with every report" "$tmp/quiet.json" "$tmp/quiet_slow.json" --markdown "$tmp/f.md" --junit "$tmp/f.xml" --json "$tmp/f.json"
has "$tmp/out" "next: confirm k1/avx2/dp/t1/n=4096 interleaved on one machine: nodescale gate --ab OLD_BINARY NEW_BINARY k1 -- --isa avx2 --threads 1 --n 4096" "the table's next step is gate --ab with the kernel's options"
has "$tmp/out" "nodescale bench k1 --isa avx2 --threads 1 --n 4096 --samples 30" "the table's next step includes the bench command"
has "$tmp/f.md" "**What next:**" "the Markdown report has a 'What next' part"
has "$tmp/f.md" "nodescale gate --ab OLD_BINARY NEW_BINARY k1 -- --isa avx2" "the Markdown report's next step is gate --ab"
has "$tmp/f.xml" "next: confirm k1/avx2/dp/t1/n=4096" "the JUnit report carries the next step"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 'gate --ab' in d['next_steps']" "$tmp/f.json" \
    || fail "the JSON report's next_steps name gate --ab"
mk "$tmp/gemm.json" ids=dgemm/avx2/dp/t2/m=256,n=128,k=64
mk "$tmp/gemm_slow.json" ids=dgemm/avx2/dp/t2/m=256,n=128,k=64 scale=1.5
gate 1 "a GEMM regression" "$tmp/gemm.json" "$tmp/gemm_slow.json"
has "$tmp/out" "nodescale bench dgemm --isa avx2 --threads 2 --m 256 --n 128 --k 64 --samples 30" "the next step's bench command carries m, n and k"
cp tests/fixtures/gate/fake-bench.sh "$tmp/fake.sh"
printf '#!/usr/bin/env bash\nFAKE_SCALE=1.2 exec "$(dirname "$0")/fake.sh" "$@"\n' >"$tmp/slow.sh"
chmod +x "$tmp/fake.sh" "$tmp/slow.sh"
gate 1 "A/B: a 20% slower build" --ab "$tmp/fake.sh" "$tmp/slow.sh" k1 --rounds 6
has "$tmp/out" "next: reproduce k1/avx2/dp/t1 with each build: $tmp/fake.sh bench k1 --isa avx2 --threads 1 --samples 30, and the same with $tmp/slow.sh" "the A/B next step reproduces with each binary"
mk "$tmp/esc.json" ids=$'k\x1b[31m/avx2/dp/t1/n=4096'
mk "$tmp/esc_slow.json" ids=$'k\x1b[31m/avx2/dp/t1/n=4096' scale=1.5 top.interrupted=true
gate 1 "an id with a control character" "$tmp/esc.json" "$tmp/esc_slow.json"
has "$tmp/out" 'next: confirm k\x1B[31m/avx2' "the next step shows the control character escaped"
! grep -q $'\x1b' "$tmp/out" || fail "no raw control character reaches the terminal"
printf 'zz\033[31m*  10%%\n' >"$tmp/thr_esc.txt"
gate 1 "an id and a pattern with control characters, --quiet" --quiet --thresholds "$tmp/thr_esc.txt" "$tmp/esc.json" "$tmp/esc_slow.json"
has "$tmp/err" "pattern 'zz\x1B[31m*' matches no benchmark (ids look like 'k\x1B[31m/avx2" "the --quiet warning shows pattern and id escaped"
! grep -q $'\x1b' "$tmp/err" || fail "no raw control character reaches stderr"
gate 1 "nothing compared at --min-samples 20: the next step is to see the rows" --min-samples 20 "$tmp/quiet.json" "$tmp/quiet_slow.json"
has "$tmp/out" "next: see each row's note" "nothing compared at --min-samples 20: the next step is to see the rows"
gate 0 "a pass" "$tmp/quiet.json" "$tmp/quiet.json" --markdown "$tmp/p.md"
hasnt "$tmp/out" "next:" "a pass has no next step in the table"
hasnt "$tmp/p.md" "What next" "a pass has no 'What next' in the Markdown report"

# --- no report over an input; the INVALID reason and its advice; the advice's --samples at
# least --min-samples; a --history file given twice counted once --------------------------------
setkey() { # setkey FILE PYTHON_STATEMENT_ON_r: edits every result r of FILE in place
    python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
for r in d['results']: $2
json.dump(d, open(sys.argv[1], 'w'))" "$1"
}
cp "$tmp/quiet.json" "$tmp/c2.json"
cp "$tmp/quiet.json" "$tmp/b2.json"
cp "$tmp/quiet.json" "$tmp/h9.json"
gate 2 "--json over CURRENT is refused" "$tmp/quiet.json" "$tmp/c2.json" --quiet --json "$tmp/c2.json"
has "$tmp/err" "error: --json $tmp/c2.json is an input (CURRENT $tmp/c2.json)" "the refusal names --json and CURRENT"
gate 2 "--markdown over BASELINE by another path is refused" "$tmp/b2.json" "$tmp/quiet.json" \
    --markdown "$tmp/./b2.json"
has "$tmp/err" "is an input (BASELINE" "the refusal names BASELINE"
gate 2 "--junit over a --history file is refused" --history "$tmp/h9.json" "$tmp/b2.json" \
    "$tmp/quiet.json" --junit "$tmp/h9.json"
has "$tmp/err" "is an input (--history $tmp/h9.json)" "the refusal names the --history file"
for f in c2 b2 h9; do cmp -s "$tmp/$f.json" "$tmp/quiet.json" || fail "a refused report left $f.json as it was"; done

mk "$tmp/tl.json"
setkey "$tmp/tl.json" "r['status'] = 'invalid: the OpenMP runtime gave 1 of 2 threads'; r['validated'] = True"
gate 1 "INVALID by a cut thread team" "$tmp/quiet.json" "$tmp/tl.json" --markdown "$tmp/tl.md"
has "$tmp/out" "1 INVALID (status invalid: the OpenMP runtime gave 1 of 2 threads)" "the verdict line gives the status as the reason"
hasnt "$tmp/out" "check failed" "a cut thread team is not called a failed check"
has "$tmp/out" "next: remove the cause the INVALID row's status names" "the next step is to remove the cause the status names"
hasnt "$tmp/out" "--samples" "no advice to take more samples"
hasnt "$tmp/tl.md" "failed its output check" "the Markdown report does not call it a failed check"
mk "$tmp/tofail.json" # a failed status with validated false: the status is the reason and the advice
setkey "$tmp/tofail.json" "r['status'] = 'failed: timed out'; r['validated'] = False"
gate 1 "INVALID by a failed status, validated false" "$tmp/quiet.json" "$tmp/tofail.json"
has "$tmp/out" "1 INVALID (status failed: timed out)" "the verdict line gives the status as the reason"
has "$tmp/out" "next: remove the cause the INVALID row's status names" "the advice follows the status printed"
hasnt "$tmp/out" "computes k1/avx2/dp/t1/n=4096 wrongly" "no advice about a failed output check"
mk "$tmp/wrong.json" # a failed check as the harness writes it (harness/result.c)
setkey "$tmp/wrong.json" "r['status'] = 'invalid: output check failed'; r['validated'] = False; r['check'] = {'error': 0.5, 'bound': 1e-12, 'why': 'max error 0.5'}"
gate 1 "INVALID by a failed output check" "$tmp/quiet.json" "$tmp/wrong.json" --markdown "$tmp/wrong.md"
has "$tmp/out" "1 INVALID (output check failed: max error 0.5)" "the verdict line gives the failed check and its reason"
hasnt "$tmp/out" "status invalid" "the failed check, not its status, is the reason"
has "$tmp/out" "next: the current build computes k1/avx2/dp/t1/n=4096 wrongly" "the next step says the build computes wrongly"
hasnt "$tmp/out" "next: remove the cause the INVALID row's status names" "no advice to remove a status's cause"
has "$tmp/wrong.md" "failed its output check" "the Markdown report says it failed its output check"

gate 1 "nothing compared at --min-samples 50" --min-samples 50 "$tmp/quiet.json" "$tmp/quiet_slow.json"
has "$tmp/out" "bench KERNEL --samples 50" "the next step asks for --min-samples samples"

mk "$tmp/h1.json" scale=1.02
mk "$tmp/h2.json" scale=0.98
gate 0 "the baseline and a --history file given again as --history" --history "$tmp/quiet.json" --history "$tmp/h1.json" \
    --history "$tmp/h2.json" --history "$tmp/./h1.json" "$tmp/quiet.json" "$tmp/quiet.json"
has "$tmp/out" "WARNING: --history $tmp/quiet.json is the same file as the BASELINE: counted once" "the baseline as --history is counted once"
has "$tmp/out" "WARNING: --history $tmp/./h1.json is the same file as --history $tmp/h1.json: counted once" "a --history file given twice is counted once"
has "$tmp/out" "over 3 runs" "the drift is over the 3 distinct runs"

# --- no report over a run's, fleet's or another command's file; CURRENT given as --history ---
mkdir "$tmp/run"
mk "$tmp/run/results.json" ids='a;b'
echo '# nodescale report: vm' >"$tmp/run/report.md"
echo 'log' >"$tmp/run/run.log"
echo '{"schema":"nodescale/1","kind":"compare","rows":[]}' >"$tmp/compare.json"
echo '{"schema":"nodescale-cluster/1","points":[]}' >"$tmp/cluster.json"
cp -r "$tmp/run" "$tmp/run.before"
cp "$tmp/compare.json" "$tmp/compare.before"
cp "$tmp/cluster.json" "$tmp/cluster.before"
gate 2 "--json over a run's results.json is refused" "$tmp/quiet.json" "$tmp/quiet.json" \
    --json "$tmp/run/results.json"
has "$tmp/err" "--json $tmp/run/results.json holds a run's results (2 results), not an earlier gate report" "the refusal says the file holds a run's results"
gate 2 "--markdown over a run's report.md is refused" "$tmp/quiet.json" "$tmp/quiet.json" \
    --markdown "$tmp/run/report.md"
has "$tmp/err" "holds a run's report (report.md)" "the refusal says the file holds a run's report"
gate 2 "--junit over a run's run.log is refused" "$tmp/quiet.json" "$tmp/quiet.json" --junit "$tmp/run/run.log"
has "$tmp/err" "--junit $tmp/run/run.log holds other text" "the refusal says the file holds other text"
gate 2 "--json over a compare report is refused" "$tmp/quiet.json" "$tmp/quiet.json" --json "$tmp/compare.json"
has "$tmp/err" "holds a compare report" "the refusal says the file holds a compare report"
gate 2 "--json over a cluster report is refused" "$tmp/quiet.json" "$tmp/quiet.json" --json "$tmp/cluster.json"
has "$tmp/err" "holds a cluster report" "the refusal says the file holds a cluster report"
diff -r "$tmp/run" "$tmp/run.before" >/dev/null || fail "the run's folder is left as it was"
cmp -s "$tmp/compare.json" "$tmp/compare.before" || fail "compare.json is left as it was"
cmp -s "$tmp/cluster.json" "$tmp/cluster.before" || fail "the cluster report is left as it was"
# Its own earlier reports are rewritten; one kind is not written over another.
gate 0 "the gate writes its three reports" "$tmp/quiet.json" "$tmp/quiet.json" --json "$tmp/g.json" --junit "$tmp/g.xml" \
    --markdown "$tmp/g.md"
gate 0 "the gate writes over its own earlier reports" "$tmp/quiet.json" "$tmp/quiet.json" --json "$tmp/g.json" \
    --junit "$tmp/g.xml" --markdown "$tmp/g.md"
gate 2 "--markdown over a gate JUnit report is refused" "$tmp/quiet.json" "$tmp/quiet.json" --markdown "$tmp/g.xml"
has "$tmp/err" "holds a gate JUnit report, not an earlier gate Markdown report" "the refusal names both report kinds"

cp "$tmp/quiet.json" "$tmp/cur.json"
ln -s "$tmp/cur.json" "$tmp/cur-link.json"
gate 0 "CURRENT as --history through a link" --history "$tmp/cur-link.json" \
    --history "$tmp/h1.json" --history "$tmp/h2.json" "$tmp/quiet.json" "$tmp/cur.json"
has "$tmp/out" "WARNING: --history $tmp/cur-link.json is the same file as the CURRENT: not counted" "CURRENT as --history is not counted, with a warning"
has "$tmp/out" "over 3 runs" "the drift is over the baseline and the 2 other --history runs"

# --- a copy of CURRENT (a CI artifact), of a --history file, or the baseline's run written
# again (same context.date and samples, other bytes) is no further baseline run -----------------
mk "$tmp/g_base.json" ctx.date='"2026-11-29T09:00:00Z"'
mk "$tmp/g_h1.json" scale=1.30 ctx.date='"2026-11-29T10:00:00Z"'
mk "$tmp/g_cur.json" scale=1.45 ctx.date='"2026-11-29T11:00:00Z"'
cp "$tmp/g_cur.json" "$tmp/g_curcopy.json"
cp "$tmp/g_h1.json" "$tmp/g_h1copy.json"
python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], 'w'), indent=1)" \
  "$tmp/g_base.json" "$tmp/g_base_again.json"
cmp -s "$tmp/g_base.json" "$tmp/g_base_again.json" && fail "the rewritten baseline differs in its bytes"
gate 1 "a copy of CURRENT as --history" "$tmp/g_base.json" "$tmp/g_cur.json" \
    --history "$tmp/g_h1.json" --history "$tmp/g_curcopy.json" --markdown "$tmp/g17.md"
has "$tmp/out" "WARNING: --history $tmp/g_curcopy.json is a copy (the same bytes) of the CURRENT: not counted" "a copy of CURRENT is not counted, with a warning"
hasnt "$tmp/out" "between-run drift" "no drift from 2 runs"
has "$tmp/g17.md" "is a copy (the same bytes) of the CURRENT: not counted" "the Markdown report warns of the copy of CURRENT"
gate 1 "a copy of a --history file and the baseline's run rewritten as --history" "$tmp/g_base.json" "$tmp/g_cur.json" \
    --history "$tmp/g_h1.json" --history "$tmp/g_h1copy.json" --history "$tmp/g_base_again.json"
has "$tmp/out" "WARNING: --history $tmp/g_h1copy.json is a copy (the same bytes) of --history $tmp/g_h1.json: counted once" "a copy of a --history file is counted once"
has "$tmp/out" "WARNING: --history $tmp/g_base_again.json is the same run (the same context.date and samples) as the BASELINE: counted once" "the baseline's run rewritten is counted once"
hasnt "$tmp/out" "between-run drift" "no drift from the 2 distinct runs"
# A pipe is read once, by the one load of each input: its run is still recognised.
gate 0 "the baseline's run as a --history pipe" --history <(cat "$tmp/g_base.json") \
    "$tmp/g_base.json" "$tmp/g_base.json"
has "$tmp/out" "is the same run (the same context.date and samples) as the BASELINE: counted once" \
    "a --history pipe holding the baseline's run is counted once"
"$ns" gate --help >"$tmp/help" 2>&1
has "$tmp/help" "a copy" "gate --help says a copy counts once"

# trial 19d #20: a fleet.json names what to pass instead, as cluster and roofline do.
echo '{"schema": "nodescale/1", "kind": "fleet", "nodes": []}' >"$tmp/fleet.json"
"$ns" gate "$tmp/fleet.json" "$tmp/fleet.json" >"$tmp/fl.out" 2>&1
has "$tmp/fl.out" "nodes/<node>/results.json" "t19d #20: gate on a fleet.json"

[ $fails -eq 0 ] && echo "gate_hints: all passed" || echo "gate_hints: $fails failed"
[ $fails -eq 0 ]
