#!/usr/bin/env bash
# review14 #24: the sweep picture draws at most NS_ROOFLINE_SWEEP_PANELS (4) panels. With five
# thread counts in the sweep (the synthetic fixture's 1 and 2 threads, copied to 3, 4 and 8) it
# draws the highest four, the 8-thread one among them, and roofline.notes names the one left out
# (before: the first four seen, 8 dropped without a word).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/roofline.sh

# The fixture with its 2-thread sweep copied to each thread count given: copies OUT T...
copies() {
  python3 - "$fixture" "$@" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
extra = []
for t in map(int, sys.argv[3:]):
    for e in d["sweep"]:
        if e.get("threads") == 2:
            x = copy.deepcopy(e)
            x["threads"] = t
            extra.append(x)
d["sweep"] += extra
json.dump(d, open(sys.argv[2], "w"))
PY
}
copies "$tmp/in.json" 3 4 8
mkdir -p "$tmp/t"
TMPDIR="$tmp/t" NODESCALE_KEEP_PLOT_TMP=1 $bin roofline "$tmp/in.json" --out "$tmp/out" \
  >/dev/null 2>"$tmp/err" || { echo "FAIL: exit $?: $(tail -1 "$tmp/err")"; exit 1; }
gp=$(ls "$tmp"/t/nodescale-roofline-*/roofline.gp 2>/dev/null | head -1)
[ -n "$gp" ] || { echo "FAIL: no gnuplot script kept"; exit 1; }
titles=$(grep -o "^set title '[0-9]* threads*'" "$gp" | sort -u | tr '\n' '|')
want="set title '2 threads'|set title '3 threads'|set title '4 threads'|set title '8 threads'|"
[ "$titles" = "$want" ] ||
  { echo "FAIL: sweep panels: $titles"; fails=$((fails + 1)); }
note='bandwidth_vs_working_set draws the sweep of the highest 4 of 5 thread counts (2 to 8); '
note+='left out: 1'
jq -e --arg n "$note" '.roofline.notes | index($n)' "$tmp/out/results.json" >/dev/null ||
  { echo "FAIL: no note on the left-out thread count"; fails=$((fails + 1)); }

# More thread counts than the builder keeps (32): the highest get roofs, all of them
# (roofs were capped at 16 counts, the first seen), and a note names the ones left out.
copies "$tmp/many.json" $(seq 3 40)
$bin roofline "$tmp/many.json" --no-plot --out "$tmp/many" >/dev/null 2>"$tmp/err" ||
  { echo "FAIL: 40 thread counts: exit $?: $(tail -1 "$tmp/err")"; exit 1; }
got=$(jq -c '[.roofline.ceilings_used.bandwidth[].threads] | unique | [min, max, length]' \
  "$tmp/many/results.json")
[ "$got" = "[9,40,32]" ] || { echo "FAIL: roofs for thread counts (min, max, count) $got"; fails=$((fails + 1)); }
jq -e '.roofline.notes | map(select(test("keeps the ceilings and roofs of the highest 32 of 40 thread counts"))) | length == 1' \
  "$tmp/many/results.json" >/dev/null || { echo "FAIL: no note on the counts the builder left out"; fails=$((fails + 1)); }
exit $((fails > 0))
