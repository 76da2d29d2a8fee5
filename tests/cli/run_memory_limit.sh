#!/usr/bin/env bash
# Under a memory limit (ulimit -v) the working sets are capped by what the process may allocate
# (context.memory.available_bytes and available_limited_by say which limit), and a DRAM ceiling
# missing for lack of memory is said to be missing: a ceiling entry without a rate, the report's
# table and a console warning ("no DRAM ceiling: ..."). It vanished silently: every DRAM point
# was "not measured: cannot allocate inputs" and the report's table stopped at L3.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh
lim=600000 # KiB

(ulimit -v $lim; "$ns" bench stream_triad --n 30000000 --threads 1 --json "$tmp/b.json") \
    >"$tmp/b.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "exceeds 80% of the .* GB of available memory (RLIMIT_AS" "$tmp/b.out" ||
    fail "a 720 MB bench under ulimit -v $lim: exit $rc, $(cat "$tmp/b.out")"

(ulimit -v $lim; "$ns" run --quick --threads 1 --kernels stream_triad --out "$tmp/r") \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "run under ulimit -v $lim: exit $rc: $(tail -3 "$tmp/err")"
j=$tmp/r/results.json
if [ -f "$j" ]; then
    case $(jq -r .context.memory.available_limited_by "$j") in RLIMIT_AS*) ;;
        *) fail "context.memory.available_limited_by is not RLIMIT_AS" ;; esac
    # Every sweep curve has a DRAM entry: a rate, or none with the reason.
    for c in $(jq -r '[.sweep[] | "\(.kernel)/\(.threads)"] | unique | .[]' "$j"); do
        k=${c%/*} t=${c#*/}
        e=$(jq -c --arg k "$k" --argjson t "$t" \
            '[.ceilings.bandwidth[] | select(.level == "DRAM" and .kernel == $k and .threads == $t)][0]' "$j")
        if [ "$e" = null ]; then
            fail "$k t$t: no DRAM entry in ceilings.bandwidth"
        elif [ "$(echo "$e" | jq .gbytes_per_s)" = null ]; then
            echo "$e" | jq -r .status | grep -q "^not measured: no DRAM ceiling: " ||
                fail "$k t$t: DRAM entry without a rate or a reason: $e"
            grep -q "| DRAM | $k | .*no DRAM ceiling: " "$tmp/r/report.md" ||
                fail "$k t$t: report.md does not say there is no DRAM ceiling"
            grep -q "warning: DRAM $k t$t: not measured: no DRAM ceiling: " "$tmp/err" ||
                fail "$k t$t: the console does not say there is no DRAM ceiling"
        fi
    done
    # The progress count ends where it said it would: the sweep's memory cap, read again when the
    # sweep runs, cut steps the plan had counted, and the run ended at [55/59].
    last=$(grep -o '^\[ *[0-9]*/ *[0-9]*' "$tmp/r/run.log" | tail -1 | tr -d '[ ')
    [ -n "$last" ] && [ "${last%/*}" = "${last#*/}" ] ||
        fail "the last progress line of run.log counts $last steps"
else
    fail "run under ulimit -v $lim wrote no results.json"
fi
[ $fails -eq 0 ] && echo "ok: memory limit recorded; a DRAM ceiling missing for lack of memory says so"
exit $((fails > 0))
