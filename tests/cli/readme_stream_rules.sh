#!/usr/bin/env bash
# README's STREAM and example-data statements agree with the code (#14, #15,
# #17): several passes below 256 KiB per *array* per thread (a triad of 32767 elements, 768 KiB,
# streams twice; 32768 once); the read-only roof candidate is stream_load, the kernel the sweep
# runs, not a sum; the DRAM 4x-LLC rule is said to apply to the working set, not per array as
# STREAM's; and the examples' age (their commit) is said in README.md, as their own README says.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh

# #14: the multi-pass threshold, per array per thread.
for n in 32767 32768; do
  "$ns" bench stream_triad --n $n --threads 1 --samples 3 --min-time 0.0005 \
    --json "$tmp/t$n.json" >/dev/null || fail "bench stream_triad --n $n"
done
[ "$(jq '.results[0].passes' "$tmp/t32767.json")" = 2 ] || fail "32767 elements: not 2 passes"
[ "$(jq '.results[0].passes' "$tmp/t32768.json")" = 1 ] || fail "32768 elements: not 1 pass"
tr '\n' ' ' <README.md | tr -s ' ' >"$tmp/readme"
grep -q "256 KiB per thread" "$tmp/readme" && fail "README: 256 KiB per thread (it is per array)"
[ "$(grep -o "256 KiB per array per thread" "$tmp/readme" | wc -l)" -ge 2 ] ||
  fail "README does not say 256 KiB per array per thread for passes"

# #13: the sweep's read-only kernel is the one README names among the roof candidates.
tr '\n' ' ' <roofline/roofline.c | tr -s ' ' |
  grep -q 'ns_sweep_kernels\[NS_SWEEP_KERNEL_COUNT\] = {"stream_load", "stream_copy", "stream_triad"' ||
  fail "ns_sweep_kernels (roofline/roofline.c) sweeps other kernels: update this test and README"
grep -q 'fastest trusted ceiling among the sweep kernels (`stream_load`' "$tmp/readme" ||
  fail "README: the roof candidates do not name stream_load"
grep -q "read-only sum, copy, triad" "$tmp/readme" && fail "README: stale 'read-only sum'"

# #15: the 4x-LLC rule is the working set's, not STREAM's per-array rule.
grep -q "not STREAM's rule that each array be 4x the LLC" "$tmp/readme" ||
  fail "README: the DRAM sizing rule is not said to be the working set's"

# #17: the examples' commit, in both READMEs, and the stale details they name are real.
c=$(grep -o 'commit [0-9a-f]\{7\}' examples/providers/README.md | head -1)
[ -n "$c" ] || fail "examples/providers/README.md names no commit"
grep -q "measured with the code of $c" "$tmp/readme" ||
  fail "README.md does not say the examples came from $c"
grep -q "predate the current rules" examples/providers/README.md ||
  fail "examples/providers/README.md does not say they predate the current rules"
jq -e '[.sweep[].kernel] | index("stream_sum")' examples/providers/vm-2core-run1/results.json \
  >/dev/null || fail "the examples no longer sweep stream_sum: update both READMEs"

[ $fails -eq 0 ] && echo "readme_stream_rules: ok"
[ $fails -eq 0 ]
