#!/usr/bin/env bash
# One stop request delivered twice is one request: GNU timeout sends its signal to the command and
# then to its process group, and the second copy ended the run at once (exit 130, no results.json:
# the CI failure of stop 15, tests/cli/run_out.sh). Two signals 0.1 s apart still write the
# results of what finished (a bench, whose DGEMM sample lasts seconds, shows it); a second one
# 0.5 s or more after the first ends the command at once. The first signal waits for the bench's
# stop handler and for CPU time spent (wait_cpu), not for wall time: on a loaded machine a sleep
# of 1.5 s could end before the handler was there (the signal then lost) or before the matrices
# were made (the 5000^3 case then ended and wrote its JSON between the two signals).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
quick=(run --quick --threads 1 --kernels stream_triad,dsum)

# The signal of timeout itself, as a CI job would stop a run.
timeout --preserve-status -s INT 3 "$ns" "${quick[@]}" --out "$tmp/t" >/dev/null 2>"$tmp/t.err"
rc=$?
[ $rc -eq 130 ] || fail "timeout -s INT: exit $rc, want 130: $(tail -n 1 "$tmp/t.err")"
[ -s "$tmp/t/results.json" ] || fail "timeout -s INT: results.json missing"

# Two SIGINTs 0.1 s apart during a sample of seconds (a 3000^3 DGEMM): one request, so the
# bench ends at that sample's end and writes its JSON.
"$ns" bench dgemm --n 3000 --threads 1 --samples 3 --json "$tmp/b.json" >/dev/null 2>"$tmp/b.err" &
pid=$!
wait_caught $pid && wait_cpu $pid 1.5 || fail "dgemm --n 3000: not started within 60 s"
kill -INT $pid; sleep 0.1; kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "two SIGINTs 0.1 s apart: exit $rc, want 130"
[ -s "$tmp/b.json" ] || fail "two SIGINTs 0.1 s apart: the bench JSON is missing"
grep -q '"interrupted": true' "$tmp/b.json" 2>/dev/null ||
  fail "two SIGINTs 0.1 s apart: the JSON does not say interrupted"

# A second signal 0.7 s after the first still ends it at once, whatever it waits for (here a
# 5000^3 DGEMM sample: its three 200 MB matrices took 0.6 s of CPU time to make here, a sample
# seconds more: signalled early in the first).
"$ns" bench dgemm --n 5000 --threads 1 --samples 3 --json "$tmp/c.json" >/dev/null 2>&1 &
pid=$!
wait_caught $pid && wait_cpu $pid 1.2 || fail "dgemm --n 5000: not started within 60 s"
kill -INT $pid; sleep 0.7; kill -INT $pid
t0=$(date +%s%N)
wait $pid
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc -eq 130 ] || fail "two SIGINTs 0.7 s apart: exit $rc, want 130"
[ $ms -lt 2000 ] || fail "two SIGINTs 0.7 s apart: the process took $ms ms more to end"
[ -e "$tmp/c.json" ] && fail "two SIGINTs 0.7 s apart: a JSON was written"

[ $fails -eq 0 ] && echo "stop_signal_twice: all passed"
exit $((fails > 0))
