#!/usr/bin/env bash
# Outputs checked up front and cleaned up after a failure (#6, #18): cluster --json
# onto one of its own --plot-dir files is refused; a JSON write that fails after the plots
# removes them and the folder cluster made; a path too long for the system is refused before
# computing, and every writer's message keeps the reason and says where it cut the path.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
R1=examples/providers/vm-2core-run1/results.json
R2=examples/providers/vm-2core-run2/results.json
gp=""
command -v gnuplot >/dev/null || gp=/bin/true # the plot files are written either way

# 1. --json onto a plot file: refused with exit 2, one line, nothing written (a new folder, an
# existing one, a path through "..", and a link to a plot file of an earlier run).
mkdir "$tmp/p"
for f in cluster_scaling.dat cluster_breakdown.svg cluster_scaling.gp cluster_breakdown.png; do
  NODESCALE_GNUPLOT=$gp $ns cluster --preset h100-sxm --chips 8 --plot-dir "$tmp/p" \
    --json "$tmp/p/../p/$f" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  { [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "one of the plot files" "$tmp/err"; } ||
    fail "--json on $f -> rc $rc: $(cat "$tmp/err")"
done
[ -z "$(ls "$tmp/p")" ] || fail "a refused run wrote $(ls "$tmp/p")"
NODESCALE_GNUPLOT=$gp $ns cluster --preset h100-sxm --chips 8 --plot-dir "$tmp/q" >/dev/null 2>&1
ln -s "$tmp/q/cluster_scaling.dat" "$tmp/link.json"
NODESCALE_GNUPLOT=$gp $ns cluster --preset h100-sxm --chips 8 --plot-dir "$tmp/q" \
  --json "$tmp/link.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "--json through a link onto a plot file: $(cat "$tmp/err")"
grep -q '^# chips mfu' "$tmp/q/cluster_scaling.dat" || fail "cluster_scaling.dat was replaced"
# A dangling link onto a plot file not yet written (relative, into a new folder
# or an existing one) is the same file: refused, and the picture is not replaced by JSON.
mkdir "$tmp/dl" "$tmp/dl/pd4"
ln -s pd3/cluster_scaling.png "$tmp/dl/dangl"
ln -s pd4/cluster_scaling.svg "$tmp/dl/d2"
for pair in "pd3 dangl" "pd4 d2"; do
  set -- $pair
  (cd "$tmp/dl" && NODESCALE_GNUPLOT=$gp "$ns" cluster --preset h100-sxm --chips 8 \
    --plot-dir "$1" --json "$2" >/dev/null 2>"$tmp/err")
  rc=$?
  { [ $rc -eq 2 ] && grep -q "one of the plot files" "$tmp/err"; } ||
    fail "t15#3: --json $2, a dangling link into --plot-dir $1 -> rc $rc: $(cat "$tmp/err")"
done
[ ! -e "$tmp/dl/pd3" ] && [ -z "$(ls "$tmp/dl/pd4")" ] || fail "t15#3: a refused run wrote $(find "$tmp/dl")"

# 2. The JSON write fails after the plots: no plot and no folder of this run is left.
if [ -c /dev/full ]; then
  mkdir "$tmp/mine"
  NODESCALE_GNUPLOT=$gp $ns cluster --preset h100-sxm --chips 8 --plot-dir "$tmp/mine/a/b" \
    --json /dev/full >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 1 ] || fail "--json /dev/full -> rc $rc: $(cat "$tmp/err")"
  [ -z "$(ls "$tmp/mine")" ] || fail "a failed JSON write left $(find "$tmp/mine")"
  mkdir "$tmp/keep" && touch "$tmp/keep/x"
  NODESCALE_GNUPLOT=$gp $ns cluster --preset h100-sxm --chips 8 --plot-dir "$tmp/keep" \
    --json /dev/full >/dev/null 2>&1
  [ "$(ls "$tmp/keep")" = x ] || fail "a failed JSON write left plots: $(ls "$tmp/keep")"
fi
# Trial 15 #8, #9: a failed JSON write or standard output leaves an earlier run's plots as they
# were and removes a folder it made; the message keeps the first write error's reason.
if [ -c /dev/full ]; then
  mkdir "$tmp/pre" && echo keep >"$tmp/pre/notes.txt"
  NODESCALE_GNUPLOT=$gp $ns cluster --preset h100-sxm --chips 8 --plot-dir "$tmp/pre" >/dev/null 2>&1
  (cd "$tmp/pre" && ls -A && cat cluster_*) >"$tmp/pre.before"
  NODESCALE_GNUPLOT=$gp $ns cluster --preset h100-sxm --chips 8,16 --plot-dir "$tmp/pre" \
    --json /dev/full >/dev/null 2>"$tmp/err"
  rc=$?
  (cd "$tmp/pre" && ls -A && cat cluster_*) >"$tmp/pre.after"
  [ $rc -eq 1 ] && cmp -s "$tmp/pre.before" "$tmp/pre.after" ||
    fail "t15#8: --json /dev/full -> rc $rc changed the earlier plots: $(ls -A "$tmp/pre")"
  for j in "" "--json -"; do
    # shellcheck disable=SC2086
    NODESCALE_GNUPLOT=$gp $ns cluster --preset h100-sxm --chips 8,16 --plot-dir "$tmp/pre" $j \
      >/dev/full 2>"$tmp/err"
    rc=$?
    (cd "$tmp/pre" && ls -A && cat cluster_*) >"$tmp/pre.after"
    [ $rc -eq 1 ] && cmp -s "$tmp/pre.before" "$tmp/pre.after" ||
      fail "t15#9: stdout /dev/full ($j) -> rc $rc changed the earlier plots: $(ls -A "$tmp/pre")"
    # shellcheck disable=SC2086
    NODESCALE_GNUPLOT=$gp $ns cluster --preset h100-sxm --chips 8 --plot-dir "$tmp/new9/p" $j \
      >/dev/full 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && [ ! -e "$tmp/new9" ] ||
      fail "t15#9: stdout /dev/full ($j) -> rc $rc left $(find "$tmp/new9" 2>/dev/null)"
    [ "$(cat "$tmp/err")" = "nodescale cluster: error: cannot write the standard output: No space left on device" ] ||
      fail "t15#9: stdout /dev/full ($j): $(cat "$tmp/err")"
  done
fi

# 3. Over-long paths: cluster refuses before computing (exit 2); every writer names the
# reason, and a cut path says so.
mkdir "$tmp/lp"
long="$tmp/lp/$(printf './%.0s' $(seq 2100))o.json"
name="$tmp/lp/$(printf 'x%.0s' $(seq 300)).json"
check() { # $1 = wanted rc; the rest = command
  local want=$1; shift
  "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  { [ $rc -eq "$want" ] && grep -q "File name too long" "$tmp/err"; } ||
    fail "$* -> rc $rc (want $want): $(head -c 300 "$tmp/err")"
  if grep -q '\./\./\./' "$tmp/err" && ! grep -q "characters cut" "$tmp/err"; then
    fail "$1 ${2:-}: the path is cut without saying so"
  fi
}
check 2 $ns cluster --preset h100-sxm --chips 8 --json "$long"
check 2 $ns cluster --preset h100-sxm --chips 8 --json "$name"
check 2 $ns cluster --preset h100-sxm --chips 8 --plot-dir "${long%o.json}"
check 2 $ns gate "$R1" "$R2" --json "$long"
check 2 $ns compare "$R1" "$R2" --out "${long%o.json}"
check 2 $ns bench dsum --n 1000 --samples 2 --json "$long"

[ $fails -eq 0 ] && echo "cluster_outputs: ok"
exit $((fails > 0))
