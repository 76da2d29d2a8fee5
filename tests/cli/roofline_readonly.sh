#!/usr/bin/env bash
# A redraw in place into a folder that cannot be written (a read-only mount) says
# what helps: --out DIR, not --no-plot, which without --out writes nothing at all. Needs root to
# mount (skip else).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/roofline.sh
mkdir "$tmp/mnt" "$tmp/w"
mount -t tmpfs -o size=4m tmpfs "$tmp/mnt" 2>/dev/null || { echo "skip: cannot mount a tmpfs"; exit 77; }
trap 'umount "$tmp/mnt"; rm -rf "$tmp"' EXIT
cp "$fixture" "$tmp/mnt/results.json"
mount -o remount,ro "$tmp/mnt" || { echo "skip: cannot remount read-only"; exit 77; }
$bin roofline "$tmp/mnt/results.json" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "in place, read-only: exit $rc, want 1"
grep -q "not a writable folder; nothing written (--out DIR draws into another folder)" "$tmp/err" ||
  fail "in place: no --out hint: $(cat "$tmp/err")"
grep -q -- "--no-plot" "$tmp/err" && fail "in place: --no-plot offered, it writes nothing there"
[ $fails -eq 0 ] && echo "roofline_readonly: ok"
exit $((fails > 0))
