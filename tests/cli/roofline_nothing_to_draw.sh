#!/usr/bin/env bash
# `nodescale roofline` on inputs with little or nothing to draw: an empty results file and a
# fleet file are refused (exit 2, one line, nothing written), as is a negative sweep bandwidth
# (the shared results check); a sweep whose every point has a null (unmeasured)
# bandwidth still gives results.json and the roofline pictures, while the
# bandwidth-versus-working-set picture is skipped and named; the files reported as written are
# exactly the files in the folder.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/roofline.sh
command -v python3 >/dev/null || { echo "skip: python3 needed to make the bad sweep"; exit 77; }

refused() { # description, file, text the error must contain
  mkdir -p "$tmp/in"
  cp "$2" "$tmp/in/input.json"
  $bin roofline "$tmp/in/input.json" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] || { echo "FAIL $1: exit $rc, want 2"; fails=$((fails + 1)); }
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^nodescale roofline: error: .*$3" "$tmp/err" ||
    { echo "FAIL $1: stderr:"; cat "$tmp/err"; fails=$((fails + 1)); }
  grep -q 'pictures\|wrote' "$tmp/out" "$tmp/err" && { echo "FAIL $1: claims output"; fails=$((fails + 1)); }
  [ "$(ls "$tmp/in")" = input.json ] || { echo "FAIL $1: wrote"; ls "$tmp/in"; fails=$((fails + 1)); }
  $bin roofline "$tmp/in/input.json" --out "$tmp/o1" >/dev/null 2>&1
  [ ! -e "$tmp/o1" ] || { echo "FAIL $1: --out folder written"; fails=$((fails + 1)); }
  rm -rf "$tmp/in"
}

printf '{"schema":"nodescale/1","results":[]}\n' >"$tmp/empty.json"
refused "empty results" "$tmp/empty.json" "nothing to draw"
refused "fleet file" examples/providers/fleet-localhost/fleet.json "fleet file: run roofline on a node's results.json under nodes/"

# A sweep point at -5 GB/s is a broken file; every point null (unmeasured) is nothing to draw.
python3 - "$fixture" "$tmp/negsweep.json" "$tmp/badsweep.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["sweep"][0]["gbytes_per_s"] = -5
json.dump(d, open(sys.argv[2], "w"))
for p in d["sweep"]:
    p["gbytes_per_s"] = None
json.dump(d, open(sys.argv[3], "w"))
PY
refused "negative sweep bandwidth" "$tmp/negsweep.json" "sweep\[0\].gbytes_per_s = -5 is negative"
$bin roofline "$tmp/badsweep.json" --out "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL bad sweep: exit $rc"; cat "$tmp/err"; fails=$((fails + 1)); }
grep -q 'no picture bandwidth_vs_working_set: no sweep point' "$tmp/err" ||
  { echo "FAIL bad sweep: skipped picture not named"; cat "$tmp/err"; fails=$((fails + 1)); }
[ ! -e "$tmp/bad/bandwidth_vs_working_set.svg" ] || { echo "FAIL bad sweep: empty picture"; fails=$((fails + 1)); }
for f in results.json roofline_dp.svg roofline_dp.png; do
  [ -s "$tmp/bad/$f" ] || { echo "FAIL bad sweep: no $f"; fails=$((fails + 1)); }
done
# The list of written files is exactly what is in the folder.
sed -n 's|^nodescale roofline: wrote .*/||p' "$tmp/err" | sort >"$tmp/claimed"
ls "$tmp/bad" | sort >"$tmp/present"
diff "$tmp/claimed" "$tmp/present" >/dev/null ||
  { echo "FAIL bad sweep: claimed files differ from written ones"; diff "$tmp/claimed" "$tmp/present"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "roofline nothing to draw: ok"
exit $((fails > 0))
