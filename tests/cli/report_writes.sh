#!/usr/bin/env bash
# A report that cannot be written is an error: gate --json/--junit/--markdown to /dev/full exit 2,
# the gate table and the compare report on a full stdout exit 1 (a write failed),
# with a one-line reason (they exited 0 with an empty report, and as root the atomic rename
# replaced /dev/full by a regular file).
# A compare that fails to write removes the --out folder it created (and its files), never a
# folder that was there before (trial 4, defect 11: an empty folder was left behind).
# Writing to a device (/dev/stdout) still works.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh
[ -c /dev/full ] || { echo "skip: /dev/full is not a character device"; exit 77; }
g=tests/fixtures/gate
fx=tests/fixtures/fleet
# Reports go to a link to /dev/full: a writer that renames over its target replaces the link,
# never /dev/full itself (tests may run as root).
ln -s /dev/full "$tmp/full"

expect_2() { # name, stderr file, exit code[, wanted code: 2]
  [ "$3" -eq "${4:-2}" ] || { echo "FAIL: $1: exit $3, want ${4:-2}"; fails=$((fails + 1)); }
  [ "$(wc -l <"$2")" -eq 1 ] && grep -q 'error: .*No space left on device' "$2" ||
    { echo "FAIL: $1: no one-line reason"; cat "$2"; fails=$((fails + 1)); }
}
for o in --json --junit --markdown; do
  $ns gate $g/b24_base.json $g/b24_cand.json $o "$tmp/full" >/dev/null 2>"$tmp/e"
  expect_2 "gate $o /dev/full" "$tmp/e" $?
  [ -L "$tmp/full" ] || { echo "FAIL: gate $o replaced the link to /dev/full"; fails=$((fails + 1)); }
  rm -f "$tmp/full" && ln -s /dev/full "$tmp/full"
done
$ns gate $g/b24_base.json $g/b24_cand.json >/dev/full 2>"$tmp/e"
expect_2 "gate >/dev/full" "$tmp/e" $? 1
$ns compare $fx/provider_x.json $fx/provider_y.json --out "$tmp/c" >/dev/full 2>"$tmp/e"
rc=$?
grep -v '^nodescale compare: note:' "$tmp/e" >"$tmp/e2"
expect_2 "compare >/dev/full" "$tmp/e2" $rc 1
[ -e "$tmp/c" ] && { echo "FAIL: compare >/dev/full left its --out folder"; fails=$((fails + 1)); }

# A full disk, as a file size limit of 0 (SIGXFSZ ignored, so write() fails with EFBIG): the
# folders compare created go, a folder that existed stays.
# stderr goes through a pipe: the limit applies to regular files.
full_disk() { (ulimit -f 0; trap '' XFSZ; exec "$@"); }
full_disk $ns compare $fx/provider_x.json $fx/provider_y.json --out "$tmp/new/deep" 2>&1 >/dev/null |
  cat >"$tmp/e"
rc=${PIPESTATUS[0]}
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q '^nodescale compare: error: ' "$tmp/e" ||
  { echo "FAIL: compare on a full disk: exit $rc"; cat "$tmp/e"; fails=$((fails + 1)); }
[ -e "$tmp/new" ] && { echo "FAIL: compare on a full disk left $(find "$tmp/new")"; fails=$((fails + 1)); }
mkdir "$tmp/old"
full_disk $ns compare $fx/provider_x.json $fx/provider_y.json --out "$tmp/old" >/dev/null 2>&1
[ -d "$tmp/old" ] && [ -z "$(ls -A "$tmp/old")" ] ||
  { echo "FAIL: compare on a full disk: the existing --out folder removed or not emptied"; fails=$((fails + 1)); }

# A device is written in place, not replaced.
$ns gate $g/b24_base.json $g/b24_cand.json --quiet --json /dev/stdout >"$tmp/g.json" 2>"$tmp/e"
rc=$?
[ $rc -le 1 ] && jq -e '.schema == "nodescale-gate/1"' "$tmp/g.json" >/dev/null ||
  { echo "FAIL: gate --json /dev/stdout (exit $rc)"; cat "$tmp/e"; fails=$((fails + 1)); }

[ $fails -eq 0 ] && echo "report_writes: ok"
exit $((fails > 0))
