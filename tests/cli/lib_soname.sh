#!/usr/bin/env bash
# The build tree holds the soname link lib/libnodescale.so.0 (the .so's SONAME), so a program
# linked with -L lib -Wl,-rpath,lib starts (it failed with "libnodescale.so.0: cannot open shared
# object file" when only `make install` made the link).
set -u
cd "$(dirname "$0")/../.."
[ -f lib/libnodescale.so ] || { echo "skip: library not built"; exit 77; }
CC=${CC:-cc}
command -v "$CC" >/dev/null && command -v readelf >/dev/null || { echo "skip: $CC or readelf missing"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

soname=$(readelf -d lib/libnodescale.so | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libnodescale.so.0 ] || fail "SONAME is '$soname', want libnodescale.so.0"
[ -L lib/libnodescale.so.0 ] || fail "make all made no lib/libnodescale.so.0 link"
[ "$(readlink -f lib/libnodescale.so.0)" = "$(readlink -f lib/libnodescale.so)" ] ||
    fail "lib/libnodescale.so.0 does not point to lib/libnodescale.so"

cat >"$T/prog.c" <<'C'
#include <nodescale.h>
#include <stdio.h>
int main(void) {
    double a[4] = {1, 2, 3, 4}, c[4] = {0};
    int rc = nodescale_dgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, 2, 2, 2, 1, a,
                             2, a, 2, 0, c, 2);
    printf("%s\n", rc == 0 && c[0] == 7 && c[3] == 22 ? "ok" : "wrong");
    return rc != 0;
}
C
if ! "$CC" -std=c11 -Iinclude "$T/prog.c" -L lib -lnodescale -Wl,-rpath,"$PWD/lib" -fopenmp \
        -lhwloc -lm -o "$T/prog" 2>"$T/cc.err"; then
    fail "link with -L lib -lnodescale: $(head -3 "$T/cc.err")"
else
    out=$(env -u LD_LIBRARY_PATH "$T/prog" 2>&1)
    [ "$out" = ok ] || fail "the program linked with -rpath lib does not run: $out"
fi
[ $fails -eq 0 ] && echo "ok: lib/libnodescale.so.0 exists and a program linked with -rpath lib runs"
exit $((fails > 0))
