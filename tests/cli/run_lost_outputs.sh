#!/usr/bin/env bash
# A run whose disk fills after results.json exits 1 and its reports name only the
# files it wrote (it exited 0, and report.md listed results.csv, sweep.csv and every picture it
# had not written). A 420 KiB tmpfs holds results.json (220 KB), the cluster files and the reports, not every picture; needs root (skip else).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
mkdir "$tmp/mnt"
mount -t tmpfs -o size=420k tmpfs "$tmp/mnt" 2>/dev/null || { echo "skip: cannot mount a tmpfs"; exit 77; }
trap 'umount "$tmp/mnt"; rm -rf "$tmp"' EXIT
"$ns" run --quick --threads 1 --kernels stream_triad --out "$tmp/mnt/x" >"$tmp/out" 2>"$tmp/err"
rc=$?
d=$tmp/mnt/x
[ -s "$d/results.json" ] || { fail "no results.json"; exit 1; }
if grep -q "cannot write" "$tmp/err"; then
  [ $rc -eq 1 ] || fail "outputs lost, exit $rc, want 1"
  grep -q "could not be written" "$tmp/err" || fail "no closing error line"
else
  echo "note: everything fitted; only the Files lines are checked"
  [ $rc -eq 0 ] || fail "exit $rc"
fi
# Every file a report's Files line names is in the folder.
for r in report.md report.html; do
  [ -f "$d/$r" ] || continue
  line=$(grep -m1 'Files:' "$d/$r")
  for f in $(echo "$line" | grep -o '<code>[^<]*</code>\|`[^`]*`' | sed 's/<[^>]*>//g; s/`//g'); do
    case $f in *.*) [ -e "$d/$f" ] || fail "$r names $f, not in the folder" ;;
      *) ls "$d/$f".* >/dev/null 2>&1 || fail "$r names $f.*, none in the folder" ;; esac
  done
done
[ $fails -eq 0 ] && echo "run_lost_outputs: ok"
exit $((fails > 0))
