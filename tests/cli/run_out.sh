#!/usr/bin/env bash
# Trial 7 #1, #2, #6, #17: a run's folder is its own. Two runs given one --out: the second is
# refused (exit 2, one line) and the first's files stay whole; two runs started in the same
# second without --out get two folders. An --out holding any file of another run (gbench.json,
# report.md, ...) is refused untouched. SIGTERM exits 143 (SIGINT 130). A results.json that
# cannot be written (a full disk) leaves nothing and exits 1, interrupted or not; a full
# standard output makes a command fail.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
quick=(run --quick --threads 1 --kernels stream_triad)

# Two runs, one --out: the second starts while the first writes (once the first has claimed the
# folder: a fixed sleep let the second come first on a loaded machine).
timeout --preserve-status -s INT 4 "$ns" "${quick[@]}" --out "$tmp/two" >"$tmp/a.out" 2>"$tmp/a.err" &
a=$!
wait_for "$tmp/two/run.log" '^command:' || fail "first run: no run.log within 60 s"
timeout --preserve-status -s INT 4 "$ns" "${quick[@]}" --out "$tmp/two" >"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
wait $a
arc=$?
[ $rc -eq 2 ] || fail "second run into one --out: exit $rc, want 2"
[ "$(wc -l <"$tmp/b.err")" -eq 1 ] && grep -q "error: --out .*two" "$tmp/b.err" ||
  fail "second run: not one error line: $(head -n 2 "$tmp/b.err")"
[ -s "$tmp/b.out" ] && fail "second run printed a folder"
[ $arc -eq 130 ] || fail "first run: exit $arc, want 130"
[ -s "$tmp/two/results.json" ] || fail "first run's results.json is missing"
[ "$(grep -c '^command:' "$tmp/two/run.log")" -eq 1 ] || fail "run.log holds two runs"
grep -q "roofline plot: cannot" "$tmp/a.err" && fail "first run lost its pictures: $(grep roofline "$tmp/a.err")"

# Two runs in the same second without --out (SIGTERM for one: 143), in a cwd of their own.
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && timeout --preserve-status -s INT 3 "$ns" "${quick[@]}" >c.out 2>c.err) &
c=$!
(cd "$tmp/cwd" && timeout --preserve-status -s TERM 3 "$ns" "${quick[@]}" >d.out 2>d.err)
drc=$?
wait $c
crc=$?
[ $crc -eq 130 ] || fail "SIGINT: exit $crc, want 130"
[ $drc -eq 143 ] || fail "SIGTERM: exit $drc, want 143"
dc=$(cat "$tmp/cwd/c.out") dd=$(cat "$tmp/cwd/d.out")
if [ -z "$dc" ] || [ "$dc" = "$dd" ]; then
  fail "two runs, one default folder: '$dc' and '$dd'"
else
  for d in "$dc" "$dd"; do
    [ -s "$tmp/cwd/$d/results.json" ] || fail "$d/results.json missing"
    [ "$(grep -c '^command:' "$tmp/cwd/$d/run.log")" -eq 1 ] || fail "$d/run.log holds two runs"
  done
fi

# An --out holding any one file of a run (those of the first run's folder) is refused, untouched.
for f in $(ls "$tmp/two") gbench.json fleet.json nodes; do
  rm -rf "$tmp/old" && mkdir "$tmp/old" && echo stale >"$tmp/old/$f"
  timeout --preserve-status -s INT 5 "$ns" "${quick[@]}" --out "$tmp/old" >/dev/null 2>"$tmp/e"
  rc=$?
  [ $rc -eq 2 ] && grep -q "already holds $f" "$tmp/e" || fail "--out holding $f: exit $rc: $(cat "$tmp/e")"
  [ "$(ls "$tmp/old")" = "$f" ] && [ "$(cat "$tmp/old/$f")" = stale ] || fail "--out holding $f was changed"
done

# results.json cannot be written (a 40 KiB tmpfs, root only): nothing stays, exit 1 although
# the run was interrupted, and no folder on stdout. Interrupted after 10 steps (a results.json
# of 80 KB, run.log 2 KB), not after 4 s: on a loaded machine 4 s made a results.json that fit.
mkdir "$tmp/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=40k tmpfs "$tmp/full" 2>/dev/null; then
  "$ns" "${quick[@]}" --out "$tmp/full/r" >"$tmp/f.out" 2>"$tmp/f.err" &
  pid=$!
  wait_caught $pid && wait_for "$tmp/f.err" '^\[ *10/' || fail "full disk: 10 steps not done within 60 s"
  kill -INT $pid
  wait $pid
  rc=$?
  [ $rc -eq 1 ] || fail "full disk: exit $rc, want 1"
  [ -e "$tmp/full/r" ] && fail "full disk: left $(ls "$tmp/full/r")"
  [ -s "$tmp/f.out" ] && fail "full disk: printed the folder"
  grep -q "error: cannot write .*results.json.*nothing kept" "$tmp/f.err" || fail "full disk: no reason"
  umount "$tmp/full"
else
  echo "note: full-disk case skipped (needs root and tmpfs)"
fi

# Standard output that cannot be written.
"$ns" list >/dev/full 2>"$tmp/e"
rc=$?
[ $rc -eq 1 ] && grep -q "cannot write to standard output" "$tmp/e" || fail "list >/dev/full: exit $rc"

[ $fails -eq 0 ] && echo "run out folders: ok"
exit $((fails > 0))
