#!/usr/bin/env bash
# An output path holding a control character (a newline, a tab) is refused up
# front, exit 2, one line showing it as \xNN, nothing written and no temporary folder left. A
# roofline --out with a newline was written into a gnuplot script as a space: gnuplot failed late
# on a folder that does not exist, and /tmp/nodescale-roofline-* stayed behind.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
r=tests/fixtures/roofline/synthetic_results.json
g=tests/fixtures/gate
fx=tests/fixtures/fleet
nl=$'\n'
export TMPDIR=$tmp/t
mkdir "$TMPDIR" "$tmp/in$nl"
cp "$r" "$tmp/in$nl/results.json"
refused() { # refused WHAT ARGS...: nodescale ARGS must exit 2 with one line naming \x0A or \x09
  local what=$1
  shift
  timeout 60 "$ns" "$@" >"$tmp/out" 2>"$tmp/err" # a run not refused would measure
  local rc=$?
  [ $rc -eq 2 ] || fail "$what: exit $rc, want 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'holds a control character (\\x0[9A])' "$tmp/err" ||
    fail "$what: $(head -3 "$tmp/err")"
}
refused "roofline --out" roofline "$r" --out "$tmp/o${nl}nl"
refused "roofline in place" roofline "$tmp/in$nl/results.json"
refused "run --out" run --quick --out "$tmp/o"$'\t'"x"
refused "bench --json" bench dsum --json "$tmp/b${nl}.json"
refused "gate --json" gate $g/b24_base.json $g/b24_cand.json --json "$tmp/g${nl}.json"
refused "cluster --plot-dir" cluster --preset gb300-nvl72 --plot-dir "$tmp/c${nl}d"
refused "cluster --json" cluster --preset gb300-nvl72 --json "$tmp/c${nl}.json"
refused "compare --out" compare $fx/provider_x.json $fx/provider_y.json --out "$tmp/m${nl}d"
refused "fleet --out" fleet --out "$tmp/f${nl}d"
[ -z "$(ls -A "$TMPDIR")" ] || fail "left in TMPDIR: $(ls "$TMPDIR")"
# Only t, in<newline>, out and err in $tmp.
[ "$(find "$tmp" -mindepth 1 -maxdepth 1 -printf x | wc -c)" -eq 4 ] || fail "written: $(ls "$tmp")"
[ "$(ls "$tmp/in$nl")" = results.json ] || fail "written beside the input: $(ls "$tmp/in$nl")"
[ $fails -eq 0 ] && echo "control_char_paths: ok"
exit $((fails > 0))
