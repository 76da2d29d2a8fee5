#!/usr/bin/env bash
# `gate --ab` children stay inside the CPU mask nodescale was started with (taskset), also when
# the user sets OMP_PROC_BIND/OMP_PLACES: they ran on every CPU when the starting mask was
# recorded only with nodescale's own placement defaults.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
command -v taskset >/dev/null || { echo "skip: taskset missing"; exit 77; }
[ "$(nproc --all)" -ge 2 ] && taskset -c 1 true 2>/dev/null || { echo "skip: needs CPU 1"; exit 77; }
cat >"$tmp/wrap.sh" <<W
#!/bin/sh
grep Cpus_allowed_list /proc/self/status >> "$tmp/aff"
exec "$ns" "\$@"
W
chmod +x "$tmp/wrap.sh"
for bind in "" "OMP_PROC_BIND=close" "OMP_PLACES=cores"; do
    rm -f "$tmp/aff"
    taskset -c 1 env $bind "$ns" gate --quiet --ab "$tmp/wrap.sh" "$tmp/wrap.sh" stream_triad \
        --rounds 6 --min-rounds 6 -- --n 1000 --samples 3 --threads 1 >"$tmp/out" 2>&1
    n=$(grep -c . "$tmp/aff" 2>/dev/null || echo 0)
    [ "$n" -ge 2 ] || { fail "${bind:-no OMP env}: the children did not run: $(tail -2 "$tmp/out")"; continue; }
    other=$(awk '$2 != "1"' "$tmp/aff" | head -1)
    [ -z "$other" ] || fail "${bind:-no OMP env}: under taskset -c 1 a child ran with $other"
done
[ $fails -eq 0 ] && echo "ok: gate --ab children stay in the starting mask (taskset -c 1)"
exit $((fails > 0))
