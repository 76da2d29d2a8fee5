#!/usr/bin/env bash
# `nodescale bench` without --n sizes a STREAM or reduction kernel as `run` measures it "in L2":
# its working set half the L2 its threads reach together (it was 2^16 elements whatever the
# cache: 1.5 MiB for stream_triad, more than a 1 MiB L2).
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh

for k in stream_triad dsum; do
  "$ns" bench $k --threads 1 --samples 3 --min-time 0.001 --json "$tmp/$k.json" >/dev/null 2>&1 ||
    { fail "$k: bench failed"; continue; }
  l2=$(jq '[.context.cpu.caches[] | select(.level == 2 and .type != "instruction")][0].size_bytes
           // 0' "$tmp/$k.json")
  [ "$l2" -gt 0 ] || { echo "skip: no L2 size known"; exit 77; }
  ws=$(jq '.results[0].working_set_bytes' "$tmp/$k.json")
  # Half of one L2 (one thread), rounded down to 1024 elements of at most 24 bytes.
  if [ "$ws" -le $((l2 / 2)) ] && [ "$ws" -gt $((l2 / 2 - 1024 * 24)) ]; then
    echo "ok: $k: working set $ws bytes, L2 $l2"
  else
    fail "$k: working set $ws bytes, want half of the L2's $l2"
  fi
done

echo "$fails failures"
[ $fails -eq 0 ]
