#!/usr/bin/env bash
# CLI test: `nodescale gate --ab` stopped by SIGTERM or SIGINT removes its temporary folder
# ($TMPDIR/nodescale-gate-XXXXXX) and dies from that signal (exit status 143 / 130), trial 4
# defect 10. A stand-in bench program (tests/fixtures/gate/fake-bench.sh, slowed by a sleep)
# keeps the gate busy. A TMPDIR that does not exist falls back to /tmp.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
cp tests/fixtures/gate/fake-bench.sh "$tmp/fake.sh"
printf '#!/usr/bin/env bash\nsleep 0.2\nexec "$(dirname "$0")/fake.sh" "$@"\n' >"$tmp/slow.sh"
chmod +x "$tmp/fake.sh" "$tmp/slow.sh"

# stop SIGNAL WANT_RC [LAUNCHER...]: starts an A/B gate in the background, sends SIGNAL once its
# folder exists and a round has run, and checks the exit status and that the folder is gone.
stop() {
    local sig=$1 want=$2
    shift 2
    rm -rf "$tmp/tmp" && mkdir "$tmp/tmp"
    TMPDIR="$tmp/tmp" "$@" "$ns" gate --ab "$tmp/slow.sh" "$tmp/slow.sh" k1 --rounds 30 --min-rounds 30 \
        >"$tmp/out" 2>"$tmp/err" &
    local pid=$! i
    for i in $(seq 600); do # up to 60 s: a loaded machine is slow, the signal must not come early
        grep -q 'round 2' "$tmp/err" 2>/dev/null && break
        sleep 0.1
    done
    grep -q 'round 2' "$tmp/err" || { echo "FAIL: SIG$sig: no round 2 within 60 s"; fails=$((fails + 1)); }
    kill -"$sig" $pid
    wait $pid
    local rc=$?
    if [ $rc -ne "$want" ]; then
        echo "FAIL: SIG$sig: exit $rc, want $want"; sed 's/^/  | /' "$tmp/err" | tail -3; fails=$((fails + 1))
    elif [ -n "$(ls -A "$tmp/tmp")" ]; then
        echo "FAIL: SIG$sig: left $(ls -A "$tmp/tmp")"; fails=$((fails + 1))
    elif ! grep -q "stopped by signal" "$tmp/err"; then
        echo "FAIL: SIG$sig: no 'stopped by signal' line"; fails=$((fails + 1))
    else
        echo "ok: SIG$sig: exit $rc, temporary folder removed"
    fi
}
stop TERM 143
# A background job of a script starts with SIGINT ignored; env gives it back its default action
# (coreutils >= 8.31), as an interactive Ctrl-C would find it.
if env --default-signal=INT true 2>/dev/null; then
    stop INT 130 env --default-signal=INT
else
    echo "skip: SIGINT (env has no --default-signal)"
fi
# A TMPDIR that does not exist: the temporary folder goes to /tmp instead.
if TMPDIR=/nonexistent-nodescale "$ns" gate --ab "$tmp/fake.sh" "$tmp/fake.sh" k1 --rounds 6 \
    --min-rounds 6 >/dev/null 2>"$tmp/err"; then
    echo "ok: TMPDIR missing: /tmp instead"
else
    echo "FAIL: TMPDIR missing: $(tail -n 1 "$tmp/err")"; fails=$((fails + 1))
fi
[ $fails -eq 0 ] && echo "gate_ab_signal: all passed" || echo "gate_ab_signal: $fails failed"
[ $fails -eq 0 ]
