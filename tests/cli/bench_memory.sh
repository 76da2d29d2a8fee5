#!/usr/bin/env bash
# STREAM kernels allocated a, b and c whatever the operation, 3x the working set of
# stream_load (and 1.5x copy's) that bench's memory check counts, so a working set that passed
# the check ended "not measured: cannot allocate inputs" (exit 1) instead of the README's exit 2
# for a working set beyond memory. Under ulimit -v: a working set at 60% of the memory the check
# says is available (read from its own refusal) is measured, one at 90% is refused with exit 2.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh
lim=600000 # KiB
b() { # kernel n [json]
    (ulimit -v $lim; "$ns" bench "$1" --n "$2" --threads 1 --samples 3 --min-time 0.001 \
        ${3:+--json "$3"}) >"$tmp/out" 2>&1
}

b stream_load 1G
rc=$?
avail=$(sed -n 's/.* of the \([0-9.e+]*\) GB of available memory (RLIMIT_AS.*/\1/p' "$tmp/out")
[ $rc -eq 2 ] && [ -n "$avail" ] || { echo "skip: no RLIMIT_AS refusal to read: $(cat "$tmp/out")"; exit 77; }
for k in stream_load:1 stream_copy:2 stream_triad:3; do
    name=${k%:*} arrays=${k#*:}
    n=$(python3 -c "print(int(0.6 * $avail * 1e9 / (8 * $arrays)))")
    b "$name" "$n" "$tmp/$name.json"
    rc=$?
    st=$(jq -r '.results[0].status' "$tmp/$name.json" 2>/dev/null)
    [ $rc -eq 0 ] && [ "$st" = ok ] ||
        fail "$name --n $n (60% of $avail GB) under ulimit -v $lim: exit $rc, status '$st': $(cat "$tmp/out")"
    n=$(python3 -c "print(int(0.9 * $avail * 1e9 / (8 * $arrays)))")
    b "$name" "$n" "$tmp/no.json"
    rc=$?
    [ $rc -eq 2 ] && grep -q "exceeds 80% of the .* GB of available memory" "$tmp/out" &&
        [ ! -e "$tmp/no.json" ] ||
        fail "$name --n $n (90% of $avail GB): exit $rc, want 2: $(cat "$tmp/out")"
done
[ $fails -eq 0 ] && echo "ok: STREAM kernels allocate their working set; beyond memory exits 2"
exit $((fails > 0))
