#!/usr/bin/env bash
# A report that cannot be written is an error: gate --json/--junit/--markdown to /dev/full, the
# gate table and the compare report on a full stdout exit 2 with a one-line reason (they exited 0
# with an empty report, and as root the atomic rename replaced /dev/full by a regular file).
# Writing to a device (/dev/stdout) still works.
set -u
cd "$(dirname "$0")/../.."
bin=bin/nodescale
[ -x "$bin" ] || { echo "skip: $bin not built"; exit 77; }
[ -c /dev/full ] || { echo "skip: /dev/full is not a character device"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed (scripts/install-deps.sh)"; exit 77; }
g=tests/fixtures/gate
fx=tests/fixtures/fleet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# Reports go to a link to /dev/full: a writer that renames over its target replaces the link,
# never /dev/full itself (tests may run as root).
ln -s /dev/full "$tmp/full"

expect_2() { # name, stderr file, exit code
  [ "$3" -eq 2 ] || { echo "FAIL: $1: exit $3, want 2"; fail=1; }
  [ "$(wc -l <"$2")" -eq 1 ] && grep -q 'error: .*No space left on device' "$2" ||
    { echo "FAIL: $1: no one-line reason"; cat "$2"; fail=1; }
}
for o in --json --junit --markdown; do
  $bin gate $g/b24_base.json $g/b24_cand.json $o "$tmp/full" >/dev/null 2>"$tmp/e"
  expect_2 "gate $o /dev/full" "$tmp/e" $?
  [ -L "$tmp/full" ] || { echo "FAIL: gate $o replaced the link to /dev/full"; fail=1; }
  rm -f "$tmp/full" && ln -s /dev/full "$tmp/full"
done
$bin gate $g/b24_base.json $g/b24_cand.json >/dev/full 2>"$tmp/e"
expect_2 "gate >/dev/full" "$tmp/e" $?
$bin compare $fx/provider_x.json $fx/provider_y.json --out "$tmp/c" >/dev/full 2>"$tmp/e"
rc=$?
grep -v '^nodescale compare: note:' "$tmp/e" >"$tmp/e2"
expect_2 "compare >/dev/full" "$tmp/e2" $rc

# A device is written in place, not replaced.
$bin gate $g/b24_base.json $g/b24_cand.json --quiet --json /dev/stdout >"$tmp/g.json" 2>"$tmp/e"
rc=$?
[ $rc -le 1 ] && jq -e '.schema == "nodescale-gate/1"' "$tmp/g.json" >/dev/null ||
  { echo "FAIL: gate --json /dev/stdout (exit $rc)"; cat "$tmp/e"; fail=1; }

[ $fail -eq 0 ] && echo "report_writes: ok"
exit $fail
