#!/usr/bin/env bash
# NODESCALE_GEMM_MC/KC/NC/JC_NT/IC_NT/JR_NT: the measuring commands refuse a bad value (exit 2,
# one line, nothing written); the library, which must not exit, warns once per variable and
# process however many ISAs and precisions read it (it printed the same warning 6 times).
set -u
cd "$(dirname "$0")/../.."
NS=${NS:-bin/nodescale}
[ -x "$NS" ] || { echo "skip: $NS not built"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0

for setting in NODESCALE_GEMM_KC=0 NODESCALE_GEMM_KC=-5 NODESCALE_GEMM_MC=abc NODESCALE_GEMM_NC=1k \
               NODESCALE_GEMM_KC=2000000000 NODESCALE_GEMM_JC_NT=0 NODESCALE_GEMM_IC_NT=x NODESCALE_GEMM_JR_NT=2000; do
    env "$setting" "$NS" bench dgemm --n 64 --samples 3 --json "$T/r.json" >"$T/out" 2>"$T/err"
    rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -q "^nodescale bench: error: $setting: want an integer" "$T/err" \
       || [ -e "$T/r.json" ]; then
        echo "FAIL: $setting: exit $rc: $(cat "$T/err")"; fails=$((fails + 1))
    else echo "ok: $setting refused"; fi
done
NODESCALE_GEMM_KC=128 NODESCALE_GEMM_JC_NT=1 "$NS" bench dgemm --n 64 --samples 3 >"$T/out" 2>"$T/err" \
    && echo "ok: valid values accepted" || { echo "FAIL: valid values refused: $(cat "$T/err")"; fails=$((fails + 1)); }

# Each GEMM result records its thread split and what became of the _NT variables; a product that
# is not the thread count is ignored with one warning (trial 13, defect 6: no trace at all).
if command -v jq >/dev/null; then
    for setting in NODESCALE_GEMM_JC_NT=3 NODESCALE_GEMM_JC_NT=2 NODESCALE_GEMM_KC=128; do
        rm -f "$T/w.json"
        env "$setting" "$NS" bench dgemm --n 256 --threads 2 --samples 3 --min-time 0.001 \
            --json "$T/w.json" >"$T/out" 2>"$T/err"
        rc=$?
        w=$(jq -r '.results[0].gemm_ways | "\(.jc) \(.ic) \(.jr) \(.env)"' "$T/w.json" 2>/dev/null)
        nwarn=$(grep -c "warning: ignoring NODESCALE_GEMM_JC_NT=3 (product 3) for a GEMM on 2 threads" "$T/err")
        case $setting in
            *JC_NT=3) want="ignored NODESCALE_GEMM_JC_NT=3: product 3 is not the 2 threads"; wantw=1 ;;
            *JC_NT=2) want="2 1 1 used NODESCALE_GEMM_JC_NT=2"; wantw=0 ;;
            *) want="none set"; wantw=0 ;;
        esac
        if [ $rc -ne 0 ] || [ "$nwarn" -ne $wantw ] || [ "${w#*"$want"}" = "$w" ] ||
           [ "$(echo "$w" | awk '{print $1 * $2 * $3}')" != 2 ]; then
            echo "FAIL: $setting --threads 2: exit $rc, gemm_ways '$w', $nwarn warnings: $(cat "$T/err")"
            fails=$((fails + 1))
        else echo "ok: $setting: gemm_ways '$w'"; fi
    done
else
    echo "note: jq missing: gemm_ways check not run"
fi

# The library: one DGEMM and one SGEMM call read the block sizes of every ISA and precision;
# three 2-thread DGEMMs follow (bad _JC_NT/_JR_NT values went unreported: trial 12a, defect 4).
CC=${CC:-cc}
if [ -f lib/libnodescale.a ] && command -v "$CC" >/dev/null; then
    cat >"$T/prog.c" <<'C'
#include <nodescale.h>
#include <stdlib.h>
int main(void) {
    double a[64] = {0}, b[64] = {0}, c[64];
    float as[64] = {0}, bs[64] = {0}, cs[64];
    int bad = nodescale_dgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, 8, 8, 8, 1, a,
                              8, b, 8, 0, c, 8) != 0 ||
              nodescale_sgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, 8, 8, 8, 1, as,
                              8, bs, 8, 0, cs, 8) != 0;
    double *big = calloc(3 * 200 * 200, sizeof *big);
    for (int i = 0; i < 3 && big; i++)
        bad |= nodescale_dgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, 200, 200, 200,
                               1, big, 200, big + 40000, 200, 0, big + 80000, 200) != 0;
    free(big);
    return bad || !big;
}
C
    if "$CC" -std=c11 -Iinclude "$T/prog.c" lib/libnodescale.a -fopenmp -lhwloc -lm -ldl -lpthread -o "$T/prog" 2>"$T/cc.err"; then
        OMP_NUM_THREADS=2 NODESCALE_GEMM_KC=0 NODESCALE_GEMM_MC=abc NODESCALE_GEMM_JC_NT=banana \
            NODESCALE_GEMM_JR_NT=0 "$T/prog" 2>"$T/err"
        rc=$?
        nkc=$(grep -c 'warning: ignoring NODESCALE_GEMM_KC=0' "$T/err")
        nmc=$(grep -c 'warning: ignoring NODESCALE_GEMM_MC=abc' "$T/err")
        njc=$(grep -c 'warning: ignoring NODESCALE_GEMM_JC_NT=banana' "$T/err")
        njr=$(grep -c 'warning: ignoring NODESCALE_GEMM_JR_NT=0' "$T/err")
        if [ $rc -ne 0 ] || [ "$nkc" -ne 1 ] || [ "$nmc" -ne 1 ] || [ "$njc" -ne 1 ] || [ "$njr" -ne 1 ] \
           || [ "$(wc -l <"$T/err")" -ne 4 ]; then
            echo "FAIL: library: exit $rc, want each warning once, got:"; cat "$T/err"; fails=$((fails + 1))
        else echo "ok: library warns once per variable"; fi
        # A valid JC_NT beside a bad IC_NT is kept; a product that is not the threads (3 for 2)
        # is ignored with one warning however many calls.
        OMP_NUM_THREADS=2 NODESCALE_GEMM_JC_NT=3 NODESCALE_GEMM_IC_NT=x "$T/prog" 2>"$T/err"
        rc=$?
        if [ $rc -ne 0 ] || [ "$(wc -l <"$T/err")" -ne 2 ] ||
           [ "$(grep -c 'warning: ignoring NODESCALE_GEMM_IC_NT=x' "$T/err")" -ne 1 ] ||
           [ "$(grep -c 'warning: ignoring NODESCALE_GEMM_JC_NT=3 (product 3) for a GEMM on 2 threads' "$T/err")" -ne 1 ]; then
            echo "FAIL: library JC_NT=3 IC_NT=x: exit $rc, want two warnings once, got:"; cat "$T/err"
            fails=$((fails + 1))
        else echo "ok: library warns once about a product that is not the thread count"; fi
    else
        echo "FAIL: cannot build a program against lib/libnodescale.a:"; head -5 "$T/cc.err"; fails=$((fails + 1))
    fi
else
    echo "note: lib/libnodescale.a or $CC missing: library warning check not run"
fi

# The README states the ranges the library and the commands enforce (it said "an integer >= 1",
# and 2000000000 was ignored).
if sed -n '/NODESCALE_GEMM_MC/,/_JR_NT/p' README.md | tr -s ' \n' ' ' |
   grep -q 'not an integer in \[1, 2^30\] is ignored.*outside \[1, 1024\]'; then
    echo "ok: README states [1, 2^30] and [1, 1024]"
else echo "FAIL: README does not state the ranges [1, 2^30] and [1, 1024]"; fails=$((fails + 1)); fi

[ $fails -eq 0 ] && echo "gemm env: all passed" || echo "gemm env: $fails failed"
[ $fails -eq 0 ]
