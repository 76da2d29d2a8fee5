#!/usr/bin/env bash
# The installed nodescale.pc and the README's link recipes: after make install into a fresh
# prefix, `pkg-config --static --libs nodescale` names only libraries the library needs (it pulled
# hwloc's private -ludev, which fails to link where libudev-dev is absent, as on Debian 12
# without it), a program links with it, and every `cc prog.c ...` line of the README's library
# section builds a program that runs; one that names libnodescale.a links it (no libnodescale.so
# among the program's needed libraries) and runs without LD_LIBRARY_PATH (the README called
# `pkg-config --static --libs nodescale` what libnodescale.a needs, but its -lnodescale takes the
# shared library: trial 12a, defect 7).
set -u
cd "$(dirname "$0")/../.."
[ -x bin/nodescale ] && [ -f lib/libnodescale.so ] && [ -f lib/libnodescale.a ] || { echo "skip: not built"; exit 77; }
command -v make >/dev/null && command -v pkg-config >/dev/null || { echo "skip: make or pkg-config missing"; exit 77; }
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "skip: $CC missing"; exit 77; }
unset MAKEFLAGS MFLAGS MAKELEVEL
root=$PWD
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
export PREFIX="$T/prefix"
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
make -s install PREFIX="$PREFIX" >"$T/log" 2>&1 || { echo "FAIL: make install"; cat "$T/log"; exit 1; }

cat >"$T/prog.c" <<'C'
#include <nodescale.h>
#include <stdio.h>
int main(void) {
    double a[4] = {1, 2, 3, 4}, c[4] = {0}, s = 0;
    int rc = nodescale_dgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, 2, 2, 2, 1, a,
                             2, a, 2, 0, c, 2);
    rc |= nodescale_dsum(4, c, 1, NodescaleSumPlain, NodescaleFast, &s);
    printf("%s\n", rc == 0 && s == 54 ? "ok" : "wrong");
    return rc != 0 || s != 54;
}
C

static=$(pkg-config --static --libs nodescale) || { echo "FAIL: pkg-config --static --libs nodescale"; exit 1; }
extra=$(printf '%s\n' $static | grep '^-l' | grep -vxE -- '-l(nodescale|m|hwloc|gomp|dl|pthread)')
if [ -n "$extra" ]; then
    echo "FAIL: pkg-config --static --libs nodescale names libraries nodescale does not use: $extra"
    fails=$((fails + 1))
else echo "ok: pkg-config --static --libs nodescale: $static"; fi
if (cd "$T" && "$CC" prog.c $(pkg-config --cflags --static --libs nodescale) -o prog_pc) 2>"$T/cc.err" &&
   [ "$(LD_LIBRARY_PATH="$PREFIX/lib" "$T/prog_pc")" = ok ]; then
    echo "ok: a program links with pkg-config --static --libs nodescale (its -lnodescale: the .so)"
else echo "FAIL: link with pkg-config --static --libs nodescale:"; head -5 "$T/cc.err"; fails=$((fails + 1)); fi

# The .pc file forces no OpenMP runtime on the program (it had -fopenmp in Libs: a program built
# with clang then loaded LLVM's libomp beside the library's libgomp, and the library ran on
# libomp); a clang-built program loads libgomp alone.
if printf '%s\n' $(pkg-config --libs nodescale) | grep -q -- '-fopenmp'; then
    echo "FAIL: pkg-config --libs nodescale has -fopenmp: $(pkg-config --libs nodescale)"; fails=$((fails + 1))
else echo "ok: pkg-config --libs nodescale names no -fopenmp"; fi
if command -v clang >/dev/null; then
    if (cd "$T" && clang prog.c $(pkg-config --cflags --libs nodescale) -o prog_clang) 2>"$T/cc.err" &&
       [ "$(LD_LIBRARY_PATH="$PREFIX/lib" "$T/prog_clang")" = ok ] &&
       ! LD_LIBRARY_PATH="$PREFIX/lib" ldd "$T/prog_clang" | grep -q 'libomp'; then
        echo "ok: a clang-built program runs, with libgomp and no libomp"
    else echo "FAIL: clang with pkg-config: $(LD_LIBRARY_PATH="$PREFIX/lib" ldd "$T/prog_clang" 2>&1 | grep omp)"
        head -5 "$T/cc.err"; fails=$((fails + 1)); fi
else echo "note: clang missing: the clang link is not checked"; fi

# The installed version: pkg-config's, the header's macros and nodescale_version() agree.
cat >"$T/ver.c" <<'C'
#include <nodescale.h>
#include <stdio.h>
int main(void) {
    printf("%d.%d.%d %s\n", NODESCALE_VERSION_MAJOR, NODESCALE_VERSION_MINOR,
           NODESCALE_VERSION_PATCH, nodescale_version());
    return 0;
}
C
v=$(pkg-config --modversion nodescale)
if (cd "$T" && "$CC" ver.c $(pkg-config --cflags --libs nodescale) -o ver) 2>"$T/cc.err" &&
   [ "$(LD_LIBRARY_PATH="$PREFIX/lib" "$T/ver")" = "$v $v" ] && [ -e "$PREFIX/lib/libnodescale.so.$v" ]; then
    echo "ok: version $v: pkg-config, NODESCALE_VERSION_*, nodescale_version(), libnodescale.so.$v"
else echo "FAIL: versions differ: pkg-config $v, program: $(LD_LIBRARY_PATH="$PREFIX/lib" "$T/ver" 2>&1)"
    head -5 "$T/cc.err"; fails=$((fails + 1)); fi

# The README's recipes, as written (comments dropped), in the library section.
mkdir -p "$T/repo" && ln -s "$root/include" "$T/repo/include" && ln -s "$root/lib" "$T/repo/lib" &&
    cp "$T/prog.c" "$T/repo/"
n=0
while IFS= read -r line; do
    cmd=${line%%#*}
    n=$((n + 1))
    dir=$T
    case $line in *uninstalled*) dir=$T/repo ;; esac
    rm -f "$dir/a.out"
    if (cd "$dir" && eval "$cmd") 2>"$T/cc.err" && [ "$(LD_LIBRARY_PATH="$PREFIX/lib" "$dir/a.out")" = ok ]; then
        echo "ok: README recipe: $cmd"
    else echo "FAIL: README recipe: $cmd"; head -5 "$T/cc.err"; fails=$((fails + 1)); continue; fi
    case $line in *libnodescale.a* | *static*) ;; *) continue ;; esac
    if LC_ALL=C readelf -d "$dir/a.out" | grep -q 'NEEDED.*libnodescale'; then
        echo "FAIL: README static recipe needs libnodescale.so: $cmd"; fails=$((fails + 1))
    elif [ "$(env -u LD_LIBRARY_PATH "$dir/a.out")" != ok ]; then
        echo "FAIL: README static recipe: the program does not run alone: $cmd"; fails=$((fails + 1))
    else echo "ok: README static recipe links libnodescale.a"; fi
done < <(sed -n '/<!-- section: library -->/,/<!-- section: /p' README.md | grep -E '^    cc ')
[ $n -ge 2 ] || { echo "FAIL: found $n README recipes"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "pkgconfig: ok"
exit $((fails > 0))
