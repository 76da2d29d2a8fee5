#!/usr/bin/env bash
# CLI tests of `nodescale gate`: exit codes 0/1/2, one-line errors for malformed, truncated, NaN
# and wrong-schema input, the context check, the report files (valid JSON without NaN, well-formed
# JUnit XML, Markdown), nothing written on an input error, and the interleaved A/B mode with a
# stand-in bench program. Fixtures: tests/fixtures/gate/ (make-fixtures.py).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
F=tests/fixtures/gate

expect() { # expect RC DESCRIPTION -- ARGS...
    local want=$1 what=$2; shift 3
    "$ns" gate "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc -ne "$want" ]; then
        echo "FAIL: $what: exit $rc, want $want"; sed 's/^/  | /' "$tmp/err" | head -5; fails=$((fails + 1))
        return 1
    fi
    if [ "$want" -eq 2 ]; then
        # One error line, last (A/B progress lines may precede it).
        if [ "$(grep -c 'error' "$tmp/err")" -ne 1 ] || ! tail -n 1 "$tmp/err" | grep -q '^nodescale gate: error: '; then
            echo "FAIL: $what: want one final 'nodescale gate: error:' line on stderr, got:"; cat "$tmp/err"
            fails=$((fails + 1)); return 1
        fi
    fi
    echo "ok: $what"
}

expect 0 "false-alarm case: identical code, dgemm_64 +6% within noise passes" -- $F/b24_base.json $F/b24_cand.json
expect 1 "false-alarm case: +25% injected in reduce_1m is caught" -- $F/b24_base.json $F/b24_cand_slow.json
grep -q 'reduce_1m.*REGRESSION' "$tmp/out" || { echo "FAIL: regression row missing"; fails=$((fails + 1)); }
expect 0 "a 30% per-benchmark threshold lets +25% pass" -- --thresholds $F/thresholds.txt $F/b24_base.json $F/b24_cand_slow.json
expect 1 "--threshold 20% still catches +25%" -- --threshold 20% $F/b24_base.json $F/b24_cand_slow.json
expect 0 "--threshold 0.30 lets it pass" -- --threshold 0.30 $F/b24_base.json $F/b24_cand_slow.json
expect 0 "zero spread, equal" -- $F/zero_base.json $F/zero_same.json
expect 1 "zero spread, 10% slower" -- $F/zero_base.json $F/zero_slow.json
# A current result whose check failed (or whose status is not "ok") fails the gate: INVALID, not
# "no data" that passed (trial 4), in the table, the JUnit XML and the Markdown.
expect 1 "a current result that failed validation is INVALID and fails" -- $F/b24_base.json $F/nulls.json --junit "$tmp/inv.xml" --markdown "$tmp/inv.md"
grep -q 'reduce_1m.*INVALID (current: status failed: check error' "$tmp/out" && grep -q '^verdict: FAIL.*2 INVALID' "$tmp/out" \
    && grep -q 'type="invalid"' "$tmp/inv.xml" && grep -q '\*\*INVALID\*\*' "$tmp/inv.md" \
    || { echo "FAIL: INVALID not shown"; cat "$tmp/out"; fails=$((fails + 1)); }
# Null samples with status "ok" are no data, never zero; only --fail-on-missing fails on them.
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['results'][0]['samples_s']=None
json.dump(d,open(sys.argv[2],'w'))" $F/b24_base.json "$tmp/onenull.json"
expect 0 "null samples are no data, not zero" -- $F/b24_base.json "$tmp/onenull.json"
grep -q 'no data' "$tmp/out" || { echo "FAIL: no 'no data' row"; fails=$((fails + 1)); }
expect 1 "--fail-on-missing turns no data into a failure" -- --fail-on-missing $F/b24_base.json "$tmp/onenull.json"
expect 1 "--min-samples 9: insufficient data, never a guess, and nothing compared never passes" -- --min-samples 9 $F/b24_base.json $F/b24_cand_slow.json
grep -q 'insufficient data' "$tmp/out" || { echo "FAIL: no 'insufficient data'"; fails=$((fails + 1)); }
grep -q '^verdict: FAIL.*nothing compared' "$tmp/out" || { echo "FAIL: no 'nothing compared' verdict"; fails=$((fails + 1)); }

expect 0 "--history: +25% is within reduce_1m's between-run drift" -- --history $F/history1.json --history $F/history2.json $F/b24_base.json $F/b24_cand_slow.json
grep -q 'raised to 77.2% by between-run drift 22.9%' "$tmp/out" || { echo "FAIL: drift note"; fails=$((fails + 1)); }
expect 2 "--history from another CPU refused" -- --history $F/ctx_other_cpu.json $F/b24_base.json $F/b24_cand.json
expect 2 "--history truncated" -- --history $F/truncated.json $F/b24_base.json $F/b24_cand.json
expect 2 "--history without ids" -- --history $F/no_results.json $F/b24_base.json $F/b24_cand.json

# Input errors: exit 2 with one line.
expect 2 "truncated JSON" -- $F/b24_base.json $F/truncated.json
expect 2 "bare NaN in JSON" -- $F/nan.json $F/b24_base.json
expect 2 "wrong schema" -- $F/b24_base.json $F/wrong_schema.json
expect 2 "no results array" -- $F/no_results.json $F/b24_base.json
expect 2 "duplicate id" -- $F/b24_base.json $F/dup_id.json
expect 2 "samples_s not an array" -- $F/b24_base.json $F/bad_samples.json
expect 2 "no benchmark in common" -- $F/b24_base.json $F/disjoint.json
# A current run without any valid sample compared nothing: it used to PASS with exit 0.
edit_samples() { # edit_samples OUT PYTHON_EXPR: every samples_s of b24_base.json set to EXPR
    python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
for r in d['results']: r['samples_s']=$2
json.dump(d,open(sys.argv[2],'w'))" $F/b24_base.json "$1"
}
edit_samples "$tmp/empty.json" '[]'
edit_samples "$tmp/nulls9.json" '[None]*9'
edit_samples "$tmp/huge.json" '[1e308]*len(r["samples_s"])'
edit_samples "$tmp/slow1e5.json" '[1e5]*len(r["samples_s"])'
expect 2 "every samples_s empty: no benchmark with data in common" -- $F/b24_base.json "$tmp/empty.json"
grep -q 'no benchmark with data in common' "$tmp/err" || { echo "FAIL: empty reason"; fails=$((fails + 1)); }
expect 2 "every samples_s nine nulls: no benchmark with data in common" -- $F/b24_base.json "$tmp/nulls9.json"
expect 2 "1e308 s samples are not a plausible time" -- $F/b24_base.json "$tmp/huge.json"
grep -q 'samples_s\[0\] = 1e+308 s is not a plausible time' "$tmp/err" || { echo "FAIL: 1e308 reason"; fails=$((fails + 1)); }
expect 1 "a x1e9 slowdown is a regression; the table keeps its columns" -- $F/b24_base.json "$tmp/slow1e5.json"
awk '/^benchmark /{h=index($0, "verdict")} /REGRESSION/{if (index($0, "REGRESSION") != h) bad=1} END{exit bad || !h}' "$tmp/out" \
    && grep -q '>+9999%' "$tmp/out" || { echo "FAIL: change column not capped"; cat "$tmp/out"; fails=$((fails + 1)); }
expect 2 "missing file" -- $F/b24_base.json $tmp/nonexistent.json
expect 2 "one file" -- $F/b24_base.json
expect 2 "no arguments" --
expect 2 "unknown option" -- --frobnicate $F/b24_base.json $F/b24_cand.json
expect 2 "ambiguous --threshold 5" -- --threshold 5 $F/b24_base.json $F/b24_cand.json
expect 2 "--alpha out of range" -- --alpha 2 $F/b24_base.json $F/b24_cand.json
printf 'reduce_* ten\n' >"$tmp/bad-thr.txt"
expect 2 "bad thresholds file" -- --thresholds "$tmp/bad-thr.txt" $F/b24_base.json $F/b24_cand.json
grep -q 'bad-thr.txt:1:' "$tmp/err" || { echo "FAIL: thresholds error lacks FILE:LINE"; fails=$((fails + 1)); }
expect 2 "missing thresholds file" -- --thresholds "$tmp/nope.txt" $F/b24_base.json $F/b24_cand.json
grep -q "nope.txt: No such file or directory" "$tmp/err" || { echo "FAIL: thresholds path/strerror"; fails=$((fails + 1)); }
expect 2 "thresholds file is a folder" -- --thresholds "$tmp" $F/b24_base.json $F/b24_cand.json
grep -q "$tmp: is a folder" "$tmp/err" || { echo "FAIL: thresholds folder reason"; cat "$tmp/err"; fails=$((fails + 1)); }

# Context check: refuse by default, compare loudly when asked.
expect 2 "different CPU model refused" -- $F/b24_base.json $F/ctx_other_cpu.json
grep -q 'context mismatch.*cpu.model' "$tmp/err" || { echo "FAIL: reason lacks cpu.model"; fails=$((fails + 1)); }
expect 2 "different compiler flags refused" -- $F/b24_base.json $F/ctx_other_cflags.json
expect 2 "different library versions refused" -- $F/b24_base.json $F/ctx_other_libs.json
expect 0 "--allow-context-mismatch compares" -- --allow-context-mismatch $F/b24_base.json $F/ctx_other_cflags.json
grep -q 'WARNING.*CONTEXT MISMATCH' "$tmp/err" || { echo "FAIL: no loud warning"; fails=$((fails + 1)); }

# Report files: valid, and absent after an input error.
expect 1 "reports written" -- --json "$tmp/g.json" --junit "$tmp/g.xml" --markdown "$tmp/g.md" $F/b24_base.json $F/b24_cand_slow.json
python3 - "$tmp/g.json" "$tmp/g.xml" <<'PY' || { echo "FAIL: report files invalid"; fails=$((fails + 1)); }
import json, sys, xml.etree.ElementTree as ET
def no_const(c): raise ValueError("non-finite constant " + c)
j = json.load(open(sys.argv[1]), parse_constant=no_const)
assert j["schema"] == "nodescale-gate/1" and j["exit_code"] == 1 and j["verdict"] == "fail"
reg = [b["id"] for b in j["benchmarks"] if b["regression"]]
assert reg == ["reduce_1m/avx512/dp/t1"], reg
x = ET.parse(sys.argv[2]).getroot()
assert x.tag == "testsuites" and x.get("failures") == "1", x.attrib
PY
grep -q '| `reduce_1m/avx512/dp/t1` .*REGRESSION' "$tmp/g.md" || { echo "FAIL: markdown row"; fails=$((fails + 1)); }
expect 2 "no report on input error" -- --json "$tmp/none.json" $F/b24_base.json $F/truncated.json
[ ! -e "$tmp/none.json" ] || { echo "FAIL: report written on input error"; fails=$((fails + 1)); }
expect 2 "unwritable report path" -- --json /nonexistent/dir/g.json $F/b24_base.json $F/b24_cand.json
# All or nothing: a bad last path leaves the earlier ones unwritten.
expect 2 "bad --junit path: no --json or --markdown written" -- --json "$tmp/g2.json" --markdown "$tmp/g2.md" --junit /proc/x.xml $F/b24_base.json $F/b24_base.json
[ ! -e "$tmp/g2.json" ] && [ ! -e "$tmp/g2.md" ] || { echo "FAIL: reports half-written"; fails=$((fails + 1)); }
expect 2 "a folder as --markdown path" -- --json "$tmp/g3.json" --markdown "$tmp" $F/b24_base.json $F/b24_base.json
[ ! -e "$tmp/g3.json" ] || { echo "FAIL: --json written beside a bad --markdown"; fails=$((fails + 1)); }
[ -z "$(ls "$tmp" | grep tmp)" ] || { echo "FAIL: temporary files left: $(ls "$tmp")"; fails=$((fails + 1)); }
# Two reports naming one file: refused (the last writer used to win silently), nothing written.
same_file() { # same_file DESCRIPTION -- ARGS...
    local what=$1; shift
    expect 2 "$what" "$@" || return
    grep -q 'name the same file' "$tmp/err" || { echo "FAIL: $what: reason: $(cat "$tmp/err")"; fails=$((fails + 1)); }
}
same_file "--json and --markdown to one path" -- --json "$tmp/same.json" --markdown "$tmp/same.json" $F/b24_base.json $F/b24_cand.json
[ ! -e "$tmp/same.json" ] || { echo "FAIL: same.json written"; fails=$((fails + 1)); }
mkdir -p "$tmp/sub"
same_file "--junit and --json, spelled differently" -- --junit "$tmp/sub/../same.xml" --json "$tmp/./same.xml" $F/b24_base.json $F/b24_cand.json
same_file "relative and absolute spellings" -- --markdown same.md --json "$PWD/same.md" $F/b24_base.json $F/b24_cand.json
[ ! -e same.md ] && [ ! -e "$tmp/same.xml" ] || { echo "FAIL: report written"; rm -f same.md; fails=$((fails + 1)); }
echo keep >"$tmp/exists.md"
ln "$tmp/exists.md" "$tmp/hardlink.md"
ln -s exists.md "$tmp/symlink.md"
same_file "an existing file and its hard link" -- --markdown "$tmp/exists.md" --junit "$tmp/hardlink.md" $F/b24_base.json $F/b24_cand.json
same_file "an existing file and a symlink to it" -- --json "$tmp/symlink.md" --markdown "$tmp/exists.md" $F/b24_base.json $F/b24_cand.json
[ "$(cat "$tmp/exists.md")" = keep ] || { echo "FAIL: existing file overwritten"; fails=$((fails + 1)); }
expect 0 "three different report paths are fine" -- --json "$tmp/d.json" --junit "$tmp/d.xml" --markdown "$tmp/d.md" $F/b24_base.json $F/b24_cand.json

# NODESCALE_INJECT_SLOWDOWN (the injected slowdown of gate tests): a value the timing loop would
# ignore is refused by the measuring commands, so a typo cannot inject nothing and pass.
if [ -x bin/nodescale ]; then
    for bad in stream_triad:abc stream_triad:-0.5 stream_triad:0 stream_triad:100 stream_triad :0.5 stream_traid:0.5; do
        NODESCALE_INJECT_SLOWDOWN=$bad bin/nodescale bench stream_triad --n 4096 --threads 1 --samples 9 --min-time 0.001 --json "$tmp/inj.json" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q "^nodescale bench: error: NODESCALE_INJECT_SLOWDOWN=$bad: " "$tmp/err" || [ -e "$tmp/inj.json" ]; then
            echo "FAIL: NODESCALE_INJECT_SLOWDOWN=$bad: exit $rc, $(cat "$tmp/err")"; fails=$((fails + 1))
        else echo "ok: NODESCALE_INJECT_SLOWDOWN=$bad refused"; fi
    done
    NODESCALE_INJECT_SLOWDOWN=stream_triad:0.5 bin/nodescale bench stream_triad --n 4096 --threads 1 --samples 9 --min-time 0.001 --json "$tmp/inj.json" >"$tmp/out" 2>"$tmp/err" \
        && [ -s "$tmp/inj.json" ] && echo "ok: NODESCALE_INJECT_SLOWDOWN=stream_triad:0.5 accepted" \
        || { echo "FAIL: a valid NODESCALE_INJECT_SLOWDOWN refused: $(cat "$tmp/err")"; fails=$((fails + 1)); }
    # In A/B, the builds' refusal reaches the gate's one line.
    NODESCALE_INJECT_SLOWDOWN=stream_triad:abc expect 2 "A/B: a bad injected slowdown stops the gate" -- --ab bin/nodescale bin/nodescale stream_triad --rounds 6 -- --threads 1 --n 4096 --samples 9 --min-time 0.001 \
        && { grep -q "OLD binary bin/nodescale exited 2 running 'bench stream_triad': nodescale bench: error: NODESCALE_INJECT_SLOWDOWN=stream_triad:abc" "$tmp/err" \
             || { echo "FAIL: reason: $(cat "$tmp/err")"; fails=$((fails + 1)); }; }
fi

# Interleaved A/B with a stand-in bench program.
FAKE=$F/fake-bench.sh
printf '#!/bin/sh\nFAKE_SCALE=1.2 exec %s "$@"\n' "$PWD/$FAKE" >"$tmp/slow-bench"
printf '#!/bin/sh\nFAKE_FAIL=1 exec %s "$@"\n' "$PWD/$FAKE" >"$tmp/broken-bench"
printf '#!/bin/sh\nFAKE_CFLAGS=-O2 exec %s "$@"\n' "$PWD/$FAKE" >"$tmp/o2-bench"
chmod +x "$tmp/slow-bench" "$tmp/broken-bench" "$tmp/o2-bench"
expect 0 "A/B: same build passes" -- --ab $FAKE $FAKE k1 k2 --rounds 6
expect 1 "A/B: 20% slower build is caught" -- --ab $FAKE "$tmp/slow-bench" k1 --rounds 6 --json "$tmp/ab.json"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['mode']=='ab' and len(j['benchmarks'][0]['new_round_medians_s'])==6" "$tmp/ab.json" \
    || { echo "FAIL: A/B JSON"; fails=$((fails + 1)); }
# Round settings that cannot be honoured are refused before anything runs (they were clamped,
# or ran to "insufficient data").
ab_refused() { # ab_refused DESCRIPTION REASON_REGEX -- ARGS...: exit 2, the reason, no round run
    local what=$1 why=$2; shift 2
    expect 2 "$what" "$@" || return
    grep -q -- "$why" "$tmp/err" || { echo "FAIL: $what: reason lacks '$why': $(cat "$tmp/err")"; fails=$((fails + 1)); }
    ! grep -q 'A/B round' "$tmp/err" || { echo "FAIL: $what: rounds ran before the refusal"; fails=$((fails + 1)); }
}
ab_refused "A/B: 5 rounds can never give a 95% verdict" 'rounds 5 can never give a verdict: want at least 6' -- --ab $FAKE "$tmp/slow-bench" k1 --rounds 5 --min-rounds 5
ab_refused "A/B: --rounds 2 below the default --min-rounds" 'rounds 2 can never give a verdict' -- --ab $FAKE $FAKE k1 --rounds 2
ab_refused "A/B: --min-rounds 40 above the default --rounds 30" 'min-rounds 40 exceeds --rounds 30 (the default)' -- --ab $FAKE $FAKE k1 --min-rounds 40
ab_refused "A/B: --min-rounds above --rounds" 'min-rounds 12 exceeds --rounds 10$' -- --ab $FAKE $FAKE k1 --rounds 10 --min-rounds 12
ab_refused "A/B: --min-samples 9 needs 9 rounds" 'want at least 9' -- --ab $FAKE $FAKE k1 --rounds 8 --min-samples 9
ab_refused "A/B: --json among the bench arguments" "bench argument '--json' is set by gate --ab" -- --ab $FAKE $FAKE k1 --rounds 6 -- --json "$tmp/x.json"
ab_refused "A/B: --json=FILE among the bench arguments" "bench argument '--json=$tmp/x.json'" -- --ab $FAKE $FAKE k1 --rounds 6 -- --n 5 --json="$tmp/x.json"
[ ! -e "$tmp/x.json" ] || { echo "FAIL: bench --json file written"; fails=$((fails + 1)); }
expect 2 "--rounds without --ab" -- --rounds 6 $F/b24_base.json $F/b24_cand.json
expect 0 "A/B: --rounds 6 alone lowers the default --min-rounds" -- --ab $FAKE $FAKE k1 --rounds 6
# A program that exits 0 without writing results is named, not a temporary file.
ab_child_error() { # ab_child_error DESCRIPTION MESSAGE -- ARGS...
    local what=$1 msg=$2; shift 2
    expect 2 "$what" "$@" || return
    tail -n 1 "$tmp/err" | grep -qF -- "$msg" || { echo "FAIL: $what: want '$msg', got: $(tail -n 1 "$tmp/err")"; fails=$((fails + 1)); }
    ! grep -q 'No such file' "$tmp/err" || { echo "FAIL: $what: 'No such file' shown"; fails=$((fails + 1)); }
}
ab_child_error "A/B: NEW is not a nodescale build" "NEW binary /bin/true exited 0 without writing results (is it a nodescale build?)" -- --ab $FAKE /bin/true k1 --rounds 6
ab_child_error "A/B: OLD is not a nodescale build" "OLD binary /bin/true exited 0 without writing results (is it a nodescale build?)" -- --ab /bin/true $FAKE k1 --rounds 6
ab_child_error "A/B: a failing build: its exit status and last log line" "NEW binary $tmp/broken-bench exited 3 running 'bench k1': fake-bench: kernel check failed" -- --ab $FAKE "$tmp/broken-bench" k1 --rounds 6
ab_child_error "A/B: the tester's case, a real build against /bin/true" "NEW binary /bin/true exited 0 without writing results" -- --ab $ns /bin/true stream_triad --rounds 6 -- --threads 1 --n 4096 --samples 9 --min-time 0.001
expect 0 "A/B: a different build flag is shown, not refused" -- --ab $FAKE "$tmp/o2-bench" k1 --rounds 6
# OLD and NEW naming the benchmark differently clash within the first round: said so, not
# "differs from an earlier round's" (trial 4).
printf '#!/bin/sh\nFAKE_ISA=avx512 exec %s "$@"\n' "$PWD/$FAKE" >"$tmp/isa-bench"
chmod +x "$tmp/isa-bench"
ab_child_error "A/B: OLD and NEW report different ids in one round" "NEW binary $tmp/isa-bench: result id \"k1/avx512/dp/t1\" differs from OLD's \"k1/avx2/dp/t1\" in the same round (round 1: avx512 vs avx2)" -- --ab $FAKE "$tmp/isa-bench" k1 --rounds 6
! grep -q 'earlier round' "$tmp/err" || { echo "FAIL: same-round clash called an earlier round's"; fails=$((fails + 1)); }
expect 2 "A/B: a failing build is an input error" -- --ab $FAKE "$tmp/broken-bench" k1 --rounds 6
grep -q 'kernel check failed' "$tmp/err" || { echo "FAIL: child's reason not shown"; fails=$((fails + 1)); }
expect 2 "A/B: missing binary" -- --ab $tmp/nope $FAKE k1
expect 2 "A/B: bench args without --ab" -- $F/b24_base.json $F/b24_cand.json -- --n 5

[ $fails -eq 0 ] && echo "gate CLI: all passed" || echo "gate CLI: $fails failed"
[ $fails -eq 0 ]
