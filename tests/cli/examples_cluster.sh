#!/usr/bin/env bash
# The committed examples' `cluster` sections are today's cluster model: for each run folder's
# results.json, the command its report.md prints (`nodescale cluster --preset P --node
# results.json --chips ... --search --top 1`) gives the section's rows again (layout and step
# time). After changing the model: remake the sections as examples/providers/README.md says.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh

keys='[.points[] | [.chips, .tp, .pp, .cp, .dp, .interleave, .micro_batch_seqs, .recompute,
        .recompute_layers_per_stage, (.step_s * 1e6 | round)]]'
n=0
while IFS= read -r r; do
  jq -e '.cluster.points' "$r" >/dev/null 2>&1 || continue
  n=$((n + 1))
  md=$(dirname "$r")/report.md
  cmd=$(grep -o '`nodescale cluster --preset [^`]*`' "$md" | tr -d '`' | sed 's/^nodescale //')
  [ -n "$cmd" ] || { fail "$md: no command that reproduces its cluster rows"; continue; }
  # shellcheck disable=SC2086 # the command's words
  if ! "$ns" ${cmd/results.json/$r} --json "$tmp/c.json" >/dev/null 2>"$tmp/err"; then
    fail "$r: '$cmd' failed: $(head -1 "$tmp/err")"; continue
  fi
  [ "$(jq -c ".cluster | $keys" "$r")" = "$(jq -c "$keys" "$tmp/c.json")" ] ||
    fail "$r: its cluster section is not today's model (remake it): $(jq -c ".cluster | $keys" "$r" | head -c 200)"
done < <(find examples -name results.json | sort)
[ $n -gt 0 ] || fail "no results.json with a cluster section under examples/"

[ $fails -eq 0 ] && echo "examples_cluster: ok ($n results files)"
[ $fails -eq 0 ]
