#!/usr/bin/env bash
# Every ns_* function a header declares is used by the product: some line other than its
# declaration and its definition (both start at column 0) names it, in the sources or bench/.
# A call from tests/ does not count (review 16 #29): a function nothing but a test calls is
# deleted, not kept "for later", unless the allow-list below names it with its reason:
#   hook       a test hook, or a query only tests need (ns_counters_hw_available: tests ask it
#              which counter values to expect);
#   reference  a published formula a test pins to the paper's figure, marked in its header as
#              "reference formula, checked by tests only".
# An allow-listed function must still be declared and called by a test, and taken off the list
# once product code calls it.
set -u
cd "$(dirname "$0")/../.."
command -v git >/dev/null && git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  { echo "skip: not a git checkout"; exit 77; }
declare -A allowed=(
  [ns_gemm_buffers_live]=hook [ns_gemm_set_buffer_alloc]=hook [ns_gemm_reread_env_ways]=hook
  [ns_cpu_probe_count]=hook [ns_counters_hw_available]=hook
  [ns_megatron_flops_per_iter]=reference [ns_per_direction]=reference
  [ns_gbit_to_bytes_per_s]=reference [ns_allreduce_busbw]=reference
  [ns_time_for_flops_s]=reference
)
# Lines naming f other than its declaration or definition, in git grep's "path:line" form.
uses() { git grep -nwI "$1" -- '*.c' '*.h' "${@:2}" | grep -vE "^[^:]*:[0-9]+:[a-z].*\b$1\("; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
declare -A declared=()
for h in $(git ls-files '*.h' ':!tests/'); do # product headers: a test helper is no product function
  for f in $(grep -oP '^[a-z][\w \*]*?\b\K(ns_\w+)(?=\()' "$h" | sort -u); do
    declared[$f]=$h
    product=$(uses "$f" ':!tests/' | wc -l)
    kind=${allowed[$f]:-}
    if [ -z "$kind" ]; then
      [ "$product" -eq 0 ] && fail "$h: $f is declared but no product code uses it"
      continue
    fi
    [ "$product" -gt 0 ] && fail "$f is on the allow-list ($kind) but product code calls it: take it off"
    [ "$(uses "$f" 'tests/' | wc -l)" -eq 0 ] && fail "$f is on the allow-list ($kind) but no test calls it"
    if [ "$kind" = reference ]; then
      # The comment block above the declaration says so.
      awk -v f="$f(" '/^$/ { blk = "" } { blk = blk " " $0 } index($0, f) { print blk; exit }' "$h" |
        sed 's/[ \t]*\*[ \t]*/ /g; s/  */ /g' | grep -qi 'reference formula, checked by tests only' ||
        fail "$h: $f is allowed as a reference formula but its comment does not say so"
    fi
  done
done
for f in "${!allowed[@]}"; do
  [ -n "${declared[$f]:-}" ] || fail "$f is on the allow-list but no header declares it"
done
[ $fails -eq 0 ] && echo "dead_functions: ok"
[ $fails -eq 0 ]
