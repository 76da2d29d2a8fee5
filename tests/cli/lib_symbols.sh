#!/usr/bin/env bash
# Library hygiene: libnodescale.so exports only the public nodescale_* functions, and libnodescale.a
# defines no other global symbol, so a program with a function of its own named like one of the
# library's internals (here ns_cpu_has_avx512) links against either library and the library still
# calls its own (the .so called the program's, the .a failed with "multiple definition").
set -u
cd "$(dirname "$0")/../.."
[ -f lib/libnodescale.a ] && [ -f lib/libnodescale.so ] || { echo "skip: library not built"; exit 77; }
CC=${CC:-cc}
command -v "$CC" >/dev/null && command -v nm >/dev/null || { echo "skip: $CC or nm missing"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0

other=$(nm -D --defined-only lib/libnodescale.so | awk '{print $NF}' | grep -v '^nodescale_')
n=$(nm -D --defined-only lib/libnodescale.so | awk '{print $NF}' | grep -c '^nodescale_')
if [ -n "$other" ] || [ "$n" -ne 11 ]; then
    echo "FAIL: libnodescale.so exports $n nodescale_* symbols (want 11) and:"; echo "$other" | head -20
    fails=$((fails + 1))
else echo "ok: the .so exports the 11 nodescale_* functions only"; fi
other=$(nm -g --defined-only lib/libnodescale.a 2>/dev/null | awk 'NF == 3 {print $3}' | grep -v '^nodescale_')
if [ -n "$other" ]; then
    echo "FAIL: libnodescale.a defines global symbols beyond nodescale_*:"; echo "$other" | head -20
    fails=$((fails + 1))
else echo "ok: the .a defines no global symbol beyond nodescale_*"; fi

# The library is built from what the nodescale_* functions need: it does not link the suite's
# registry, peers (dlopen of BLIS/OpenBLAS, setenv/unsetenv of OPENBLAS_CORETYPE: a host's getenv
# races setenv), STREAM or peak (all of kernels/ was in it).
calls=$(nm -D -u lib/libnodescale.so | awk '{sub(/@.*/, "", $NF); print $NF}' |
        grep -xE 'setenv|unsetenv|putenv|dlopen|dlsym|fopen|sscanf|system|popen')
inner=$(nm lib/libnodescale.a | awk '{print $NF}' | grep -E '^ns_(registry|k_|stream|peak|peer)' | head -5)
if [ -n "$calls$inner" ]; then
    echo "FAIL: libnodescale holds code no nodescale_* function needs: $calls $inner"; fails=$((fails + 1))
else echo "ok: libnodescale calls no setenv/unsetenv/dlopen and holds no registry, peers, STREAM or peak"; fi

cat >"$T/prog.c" <<'C'
#include <nodescale.h>
#include <stdio.h>
static int calls;
/* The program's own function, unrelated to the library's internal one of the same name. */
int ns_cpu_has_avx512(void);
int ns_cpu_has_avx512(void) { return ++calls; }
int main(void) {
    double a[4] = {1, 2, 3, 4}, c[4] = {0};
    int rc = nodescale_dgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, 2, 2, 2, 1, a,
                             2, a, 2, 0, c, 2);
    if (rc != 0 || c[0] != 7 || c[1] != 10 || c[2] != 15 || c[3] != 22) {
        printf("wrong result: rc %d, C = %g %g %g %g\n", rc, c[0], c[1], c[2], c[3]);
        return 1;
    }
    if (calls) {
        printf("the library called the program's ns_cpu_has_avx512 %d times\n", calls);
        return 1;
    }
    printf("ok\n");
    return 0;
}
C
libs="-fopenmp -lhwloc -lm -ldl -lpthread"
for kind in static shared; do
    if [ $kind = static ]; then
        cmd=("$CC" -std=c11 -Iinclude "$T/prog.c" lib/libnodescale.a $libs -o "$T/prog_$kind")
    else
        cmd=("$CC" -std=c11 -Iinclude "$T/prog.c" -Llib -lnodescale $libs -o "$T/prog_$kind")
        # The soname is libnodescale.so.0; the build tree has only libnodescale.so.
        mkdir -p "$T/lib" && ln -sf "$PWD/lib/libnodescale.so" "$T/lib/libnodescale.so.0"
    fi
    if ! "${cmd[@]}" 2>"$T/cc.err"; then
        echo "FAIL: $kind link of a program defining ns_cpu_has_avx512:"; head -5 "$T/cc.err"
        fails=$((fails + 1)); continue
    fi
    if out=$(LD_LIBRARY_PATH="$T/lib" "$T/prog_$kind" 2>&1) && [ "$out" = ok ]; then
        echo "ok: $kind link: the library calls its own ns_cpu_has_avx512"
    else
        echo "FAIL: $kind: $out"; fails=$((fails + 1))
    fi
done
[ $fails -eq 0 ] && echo "lib_symbols: ok"
exit $((fails > 0))
