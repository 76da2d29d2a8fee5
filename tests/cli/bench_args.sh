#!/usr/bin/env bash
# `nodescale bench` arguments: sizes of 0 and sizes whose one repetition would run for hours are
# refused before measuring (one line, exit 2); --json "" is refused before measuring; --json -
# writes pure JSON to stdout (summary on stderr, no file named -); the working-set refusal names
# its 80% rule; a result's null roof numbers carry a roof_status; Ctrl-C writes what was
# measured with "interrupted": true and exits 130; --json over a run's, fleet's or another command's
# file, or one that is not JSON, is refused: only a new file or a one-result bench file is replaced.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh

# description, a pattern the one-line message must hold, then the command (run in $tmp)
expect2() {
  local what=$1 want=$2; shift 2
  (cd "$tmp" && "$@") >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q "^nodescale bench: error: " "$tmp/err" ||
     ! grep -Eq -- "$want" "$tmp/err" || [ -s "$tmp/out" ]; then
    fail "$what: rc=$rc, $lines stderr lines, $(wc -c <"$tmp/out") bytes on stdout:"; cat "$tmp/err"
  else
    echo "ok: $what: $(cat "$tmp/err")"
  fi
}

# 1. sizes of 0
for a in "stream_triad --n 0" "ddot --n 0" "idamax --n 0" "dnrm2 --n=0" "peak_dp_fma --n 0" \
         "dgemm --n 0" "dgemm --m 0" "dgemm --k=0"; do
  # shellcheck disable=SC2086
  expect2 "bench $a" "--[nmk] wants a decimal integer .* in \[1, 1099511627776\], got '0'" \
    $ns bench $a --threads 1 --json "$tmp/r.json"
done
# The message says what was given and that a decimal number is wanted.
for v in " 5" "5 " "0x10"; do
  expect2 "--min-time '$v'" "--min-time wants a decimal number of seconds in \[1e-6, 60\], got '$v'" \
    $ns bench stream_triad --n 4096 --threads 1 --samples 3 --min-time "$v" --json "$tmp/r.json"
  expect2 "--threads '$v'" "--threads wants a decimal integer .* in \[1, 1024\], got '$v'" \
    $ns bench stream_triad --n 4096 --threads "$v" --json "$tmp/r.json"
done
# One thread bound, NS_MAX_THREADS, for run, bench and fleet (cli_errors.sh checks run's): the
# reductions ran no team past 256 while run and bench accepted 4096.
expect2 "bench --threads 1025" "--threads wants a decimal integer .* in \[1, 1024\], got '1025'" \
  $ns bench stream_triad --n 4096 --threads 1025 --json "$tmp/r.json"

# 2. one repetition over 1e13 FLOPs or bytes
expect2 "peak with 2^40 iterations" "over the limit of 1e\+13; --n [0-9]+ is the largest" \
  $ns bench peak_dp_fma --n 1099511627776 --threads 1 --json "$tmp/r.json"
# 1.6e13 FLOPs in a 9.6 GB working set: a host with less memory refuses it for memory instead
expect2 "dgemm at n = 20000" "over the limit of 1e\+13|exceeds 80% of the" \
  $ns bench dgemm --n 20000 --threads 1 --json "$tmp/r.json"

# 4. an empty --json name, refused before measuring (nothing on stdout)
expect2 "--json ''" "empty name" $ns bench stream_sum --n 1024 --threads 1 --json ""

# 6. the working-set refusal states the rule it applies
expect2 "working set beyond memory" "exceeds 80% of the [0-9.e+]+ GB of available memory" \
  $ns bench stream_triad --n 100G --threads 1 --json "$tmp/r.json"

[ -e "$tmp/r.json" ] && fail "a refused bench wrote --json"

# 8. --json over a run's record (sweep, ceilings or roofline, or several results) or a fleet's
# file is refused before measuring, the file unchanged (44 results became 1)
r1='{"schema":"nodescale/1","context":{},"results":[{"id":"a"}]}'
echo "${r1%?},\"sweep\":[]}" >"$tmp/run.json"
echo '{"schema":"nodescale/1","context":{},"results":[{"id":"a"},{"id":"b"}]}' >"$tmp/two.json"
echo '{"kind":"fleet","nodes":[]}' >"$tmp/fleet.json"
# Nor any other command's file, nor one that is not JSON
echo '{"schema":"nodescale-gate/1","verdict":"pass","results":[]}' >"$tmp/gate.json"
echo '{"schema":"nodescale/1","kind":"compare","results":[{"id":"a"}]}' >"$tmp/compare.json"
echo '{"schema":"nodescale-cluster/1","points":[]}' >"$tmp/cluster.json"
echo '# nodescale report: vm' >"$tmp/report.md"
echo 'nodescale run: log' >"$tmp/run.log"
for f in run.json two.json fleet.json gate.json compare.json cluster.json report.md run.log; do
  cp "$tmp/$f" "$tmp/$f.before"
  expect2 "--json over $f" \
    "--json .*$f holds .*(sweep|2 results|fleet|gate report|compare report|cluster report|run's report|not JSON).*give a new file" \
    $ns bench stream_triad --n 4096 --threads 1 --samples 3 --json "$tmp/$f"
  cmp -s "$tmp/$f" "$tmp/$f.before" || fail "--json over $f: the file changed"
done
# a one-result bench file is rewritten as before (gate --ab does that)
echo "$r1" >"$tmp/one.json"
(cd "$tmp" && $ns bench stream_triad --n 4096 --threads 1 --samples 3 --min-time 0.001 \
  --json "$tmp/one.json") >/dev/null 2>"$tmp/err" &&
  jq -e '.results[0].id | startswith("stream_triad")' "$tmp/one.json" >/dev/null ||
  { fail "--json over a one-result file"; cat "$tmp/err"; }

# 5. --json - : the JSON on stdout, the summary on stderr, no file named -
if (cd "$tmp" && $ns bench stream_triad --n 4096 --threads 1 --samples 3 --min-time 0.001 \
      --json -) >"$tmp/out" 2>"$tmp/err"; then
  jq -e '.results | length == 1' "$tmp/out" >/dev/null || fail "--json -: stdout is not the results JSON"
  grep -q "stream_triad.*\[ok\]" "$tmp/err" || fail "--json -: no summary line on stderr"
  [ -e "$tmp/-" ] && fail "--json - wrote a file named -"
  # 3. bench places nothing on the roofline and says so
  jq -e '.results[0] | .roof_gflops == null and (.roof_status | test("not placed"))' "$tmp/out" \
    >/dev/null || fail "null roof_gflops without a roof_status"
  jq -e '[.results[0] | to_entries[] | select(.value == null) | .key] as $n | .results[0] as $r
         | all($n[]; ($r[. + "_status"] != null) or (. == "fraction_of_roof" or . == "roof_gflops"))' \
    "$tmp/out" >/dev/null || fail "a null number without its *_status"
  echo "ok: --json - writes JSON to stdout"
else
  fail "--json -: rc=$?"; cat "$tmp/err"
fi

# 7. Ctrl-C: stop at the next sample, write what was measured, exit 130. Sent after 2 s of the
# bench's CPU time (samples of 0.2 s), not of wall time: on a loaded machine 2 s of sleep may not
# reach the first sample, nor the stop handler.
$ns bench stream_sum --n 4096 --threads 1 --samples 200 --min-time 0.2 --json "$tmp/i.json" \
  >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_caught $pid && wait_cpu $pid 2 || fail "SIGINT: the bench did not start within 60 s"
kill -INT $pid
wait $pid
rc=$?
if [ $rc -ne 130 ]; then
  fail "SIGINT: rc=$rc, want 130"; cat "$tmp/err"
elif ! jq -e '.interrupted == true and (.results[0].samples_s | length) >= 1' "$tmp/i.json" >/dev/null; then
  fail "SIGINT: no results with \"interrupted\": true"
else
  echo "ok: SIGINT: exit 130, $(jq '.results[0].samples_s | length' "$tmp/i.json") samples kept"
fi

echo "$fails failures"
[ $fails -eq 0 ]
