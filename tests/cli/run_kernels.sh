#!/usr/bin/env bash
# Trial 9 #3: `run --quick --kernels NAME` measured nothing for a kernel outside --quick's default
# list (dsum_kahan: neither in L2 nor in DRAM; stream_copy: no DRAM point). A kernel named in
# --kernels is measured in L2 and in DRAM, --quick or not, and no other STREAM/reduction kernel.
# Run.log's command line is the exact command, program path first (a word the
# shell would split in quotes), and the variables nodescale set itself are marked so.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh

"$ns" run --quick --threads 1 --kernels dsum_kahan --out "$tmp/q" >/dev/null 2>"$tmp/err" ||
  fail "run --quick --kernels dsum_kahan: exit $?: $(tail -2 "$tmp/err")"
j=$tmp/q/results.json
got=$(jq -r '[.results[] | select(.family == "stream" or .family == "reduce")
              | "\(.name)@\(.level)"] | sort | join(" ")' "$j")
[ "$got" = "dsum_kahan@DRAM dsum_kahan@L2" ] ||
  fail "run --quick --kernels dsum_kahan measured: '$got', want dsum_kahan in L2 and DRAM"
jq -e '[.results[] | select(.name == "dsum_kahan")] | all(.status == "ok")' "$j" >/dev/null ||
  fail "dsum_kahan's results are not ok"
grep -qx "command: $ns run --quick --threads 1 --kernels dsum_kahan --out $tmp/q" "$tmp/q/run.log" ||
  fail "run.log's command is not the exact command: $(grep '^command:' "$tmp/q/run.log")"
grep -q '^env: NODESCALE_START_CPUS=.*(set by nodescale' "$tmp/q/run.log" ||
  fail "run.log does not mark NODESCALE_START_CPUS as set by nodescale"

# The user's OMP_PLACES is not marked; NODESCALE_AFFINITY_SET is absent (nodescale set nothing);
# an --out with a space is quoted; KMP_* and GOTO_* are logged, as results.json records them
# (ns_env_recorded; run.log left them out). Interrupted once it has written them (its stop handler
# comes after run.log's env lines; `timeout 1` could stop a slow start before run.log existed):
# only run.log matters here.
KMP_NS_TEST=k GOTO_NS_TEST=g OMP_PLACES=cores "$ns" run --quick --threads 1 --kernels stream_triad \
  --out "$tmp/a b" >/dev/null 2>&1 &
pid=$!
wait_caught $pid || fail "run --out '$tmp/a b': no stop handler within 60 s"
kill -INT $pid 2>/dev/null
wait $pid
log=$tmp/a\ b/run.log
grep -qx "command: $ns run --quick --threads 1 --kernels stream_triad --out '$tmp/a b'" "$log" ||
  fail "a word with a space is not quoted: $(grep '^command:' "$log")"
grep -qx 'env: OMP_PLACES=cores' "$log" || fail "the user's OMP_PLACES: $(grep OMP_PLACES "$log")"
grep -qx 'env: KMP_NS_TEST=k' "$log" && grep -qx 'env: GOTO_NS_TEST=g' "$log" ||
  fail "run.log lacks KMP_* or GOTO_*: $(grep '^env:' "$log")"
grep -q '^env: NODESCALE_AFFINITY_SET' "$log" && fail "NODESCALE_AFFINITY_SET with the user's OMP_PLACES"
[ $fails -eq 0 ] && echo "ok: --quick measures the --kernels named; run.log's command and env"
exit $((fails > 0))
