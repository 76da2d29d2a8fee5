#!/usr/bin/env bash
# The plain-C and AVX2 GEMM micro-kernels keep their accumulators, A and B in registers: no k loop
# of theirs (an innermost loop, closed by a backward conditional branch with no other branch
# inside, that multiplies) loads or stores through %rsp or %rbp. The plain-C 8 x 4 DGEMM tile
# spilled every k step (32 accumulators in 16 xmm registers; trial 8, defect 5). The AVX2 kernels
# follow the AVX-512 design (trial 8, defect 8): k unrolled 4x (48 FMAs per k loop iteration)
# and masked edge stores, not a tile buffer passed to the shared scalar edge store.
set -u
cd "$(dirname "$0")/../.."
command -v objdump >/dev/null || { echo "skip: objdump missing"; exit 77; }
objs=""
for c in kernels/gemm/generic/*gemm_ukr_*.c kernels/gemm/x86_64/avx2/*gemm_ukr_*.c; do
    o=build/release/${c%.c}.o
    [ "$o" -nt "$c" ] || { echo "skip: $o missing or older than $c (make all)"; exit 77; }
    objs="$objs $o"
done
fails=0
for o in $objs; do
    # Per k loop: "start end instructions stack-references".
    loops=$(objdump -d --no-show-raw-insn "$o" | awk '
        function hex(h,   i, v) {
            v = 0
            for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
            return v
        }
        /^ *[0-9a-f]+:\t/ {
            h = $1; sub(/:/, "", h); a = hex(h); sub(/^ *[0-9a-f]+:\t/, ""); n++; addr[n] = a; txt[n] = $0
            if ($0 ~ /^j[a-z]+ +[0-9a-f]+ / && $0 !~ /^jmp/) {
                t = hex($2)
                if (t < a) {
                    cnt = 0; st = 0; mul = 0; fma = 0; ok = 1
                    for (i = n; i >= 1 && addr[i] >= t; i--) {
                        cnt++
                        if (i < n && txt[i] ~ /^j/) ok = 0
                        if (txt[i] ~ /\(%rsp\)|\(%rbp\)|%rsp,|%rbp,/) st++
                        if (txt[i] ~ /^v?(mulp|fmadd)/) mul++
                        if (txt[i] ~ /^vfmadd/) fma++
                    }
                    if (ok && mul) printf "%x %x %d %d %d\n", t, a, cnt, st, fma
                }
            }
        }')
    [ -n "$loops" ] || { echo "FAIL: $o: no k loop found"; fails=$((fails + 1)); continue; }
    avx2=0
    case $o in */avx2/*) avx2=1 ;; esac
    if [ $avx2 = 1 ] && objdump -dr "$o" | grep -q 'ns_gemm_edge_store'; then
        echo "FAIL: $o calls the scalar edge store"
        fails=$((fails + 1))
    fi
    while read -r s e cnt st fma; do
        if [ "$st" -ne 0 ]; then
            echo "FAIL: $o: k loop $s-$e ($cnt instructions) has $st stack references"
            fails=$((fails + 1))
        elif [ $avx2 = 1 ] && [ "$fma" -lt 48 ]; then
            echo "FAIL: $o: k loop $s-$e has $fma FMAs (not unrolled 4x: want 48)"
            fails=$((fails + 1))
        else
            echo "ok: $o: k loop $s-$e, $cnt instructions, no stack reference"
        fi
    done <<<"$loops"
done
exit $((fails > 0))
