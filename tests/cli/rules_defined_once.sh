#!/usr/bin/env bash
# A threshold shared by several files is #defined in one header and nowhere else (review 16 #8,
# #9): a second copy (report_md.c's "#ifndef NS_ALLREDUCE_ROUGH_FIT" fallback, its NOISY_CV
# beside gate.c's NS_GATE_DISTURBED_CV) would quietly take over, or drift, when the header's
# value changes.
set -u
cd "$(dirname "$0")/../.."
command -v git >/dev/null && git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  { echo "skip: not a git checkout"; exit 77; }
fails=0
while read -r name header; do
  where=$(git grep -lE "^\s*#\s*define\s+$name\b" -- '*.c' '*.h')
  [ "$where" = "$header" ] ||
    { echo "FAIL: $name is defined in: ${where//$'\n'/, } (want $header only)"; fails=$((fails + 1)); }
done <<'LIST'
NS_ALLREDUCE_ROUGH_FIT harness/allreduce.h
NS_DISTURBED_CV harness/stats.h
LIST
for gone in NOISY_CV NS_GATE_DISTURBED_CV; do
  git grep -qw "$gone" -- '*.c' '*.h' && { echo "FAIL: $gone is back"; fails=$((fails + 1)); }
done
[ $fails -eq 0 ] && echo "rules_defined_once: ok"
[ $fails -eq 0 ]
