#!/usr/bin/env bash
# make install into a fresh prefix, then make uninstall: nothing of nodescale is left, only the
# standard folders (bin, include, lib, lib/pkgconfig, share), empty; share/nodescale, which install
# made for nodescale alone, is removed (it was left behind). A file of the user's beside the
# installed ones survives uninstall.
set -u
cd "$(dirname "$0")/../.."
[ -x bin/nodescale ] && [ -f lib/libnodescale.so ] || { echo "skip: not built"; exit 77; }
command -v make >/dev/null || { echo "skip: make not installed"; exit 77; }
unset MAKEFLAGS MFLAGS MAKELEVEL
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
p="$tmp/prefix"

make -s install PREFIX="$p" >"$tmp/log" 2>&1 || { echo "FAIL: make install"; cat "$tmp/log"; exit 1; }
[ -x "$p/bin/nodescale" ] && [ -f "$p/include/nodescale.h" ] && [ -d "$p/share/nodescale/presets" ] ||
  { echo "FAIL: install did not install"; fail=1; }
make -s uninstall PREFIX="$p" >"$tmp/log" 2>&1 || { echo "FAIL: make uninstall"; cat "$tmp/log"; exit 1; }
left=$(cd "$p" && find . -mindepth 1 ! -type d | sort)
[ -z "$left" ] || { echo "FAIL: files left after uninstall:"; echo "$left"; fail=1; }
dirs=$(cd "$p" && find . -mindepth 1 -type d | sort | tr '\n' ' ')
[ "$dirs" = "./bin ./include ./lib ./lib/pkgconfig ./share " ] ||
  { echo "FAIL: folders left after uninstall: $dirs"; fail=1; }

# A folder shared with the user's own files is kept, with them.
make -s install PREFIX="$p" >"$tmp/log" 2>&1 || { echo "FAIL: make install (2)"; cat "$tmp/log"; exit 1; }
echo mine >"$p/share/nodescale/notes.txt"
make -s uninstall PREFIX="$p" >"$tmp/log" 2>&1 || { echo "FAIL: make uninstall (2)"; cat "$tmp/log"; fail=1; }
[ -f "$p/share/nodescale/notes.txt" ] || { echo "FAIL: uninstall removed a user's file"; fail=1; }
# Uninstalling twice (nothing installed) is not an error.
rm -rf "$p/share/nodescale"
make -s uninstall PREFIX="$p" >"$tmp/log" 2>&1 || { echo "FAIL: second uninstall"; cat "$tmp/log"; fail=1; }

[ $fail -eq 0 ] && echo "install: ok"
exit $fail
