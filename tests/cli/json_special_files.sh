#!/usr/bin/env bash
# results.json to a device or a pipe is written in place, never renamed over: as root a rename
# replaced /dev/full itself with a regular file (and reported success). /dev/full (through a
# link, so even a broken build cannot touch the device) must fail with exit 2 and one line; a
# link and a pipe must carry valid JSON and stay what they were.
set -u
cd "$(dirname "$0")/../.."
ns=bin/nodescale
[ -c /dev/full ] || { echo "skip: no /dev/full"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ln -s /dev/full "$tmp/full"
args=(stream_triad --n 4096 --threads 1 --samples 9 --min-time 0.001)
$ns bench "${args[@]}" --json "$tmp/full" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q "No space left" "$tmp/err"; then
  echo "FAIL: --json to /dev/full: rc=$rc: $(cat "$tmp/err")"; fails=$((fails + 1))
else
  echo "ok: --json to /dev/full: $(cat "$tmp/err")"
fi
[ -L "$tmp/full" ] && [ -c /dev/full ] || { echo "FAIL: the link or the device was replaced"; fails=$((fails + 1)); }
# A link (as /dev/stdout is one) is written through, not replaced by a file.
ln -s "$tmp/real.json" "$tmp/link.json"
$ns bench "${args[@]}" --json "$tmp/link.json" >/dev/null 2>&1 || { echo "FAIL: --json through a link"; fails=$((fails + 1)); }
[ -L "$tmp/link.json" ] && jq -e '.results[0].id' "$tmp/real.json" >/dev/null ||
  { echo "FAIL: the link was replaced or its target holds no JSON"; fails=$((fails + 1)); }
# A pipe, as `--json /dev/stdout | jq` passes one.
mkfifo "$tmp/fifo"
jq -e '.results[0].id' <"$tmp/fifo" >/dev/null 2>&1 &
reader=$!
$ns bench "${args[@]}" --json "$tmp/fifo" >/dev/null 2>&1 || { echo "FAIL: --json to a pipe"; fails=$((fails + 1)); }
wait $reader || { echo "FAIL: the pipe did not carry JSON"; fails=$((fails + 1)); }
[ -p "$tmp/fifo" ] || { echo "FAIL: the pipe was replaced"; fails=$((fails + 1)); }
[ $fails -eq 0 ] || exit 1
echo "all ok"
