#!/usr/bin/env bash
# compare: a fleet's noise combines the node-to-node spread with the nodes' own sample CV
# (time_s.cv of nodes/<node>/results.json). Two one-node fleets whose nodes measured with 40% CV
# distinguish nothing, as the same node files compared directly do (trial 4, defect 1: the
# fleet's noise was its node-to-node spread only, 0 for one node, so every row "differed" at the
# 5% floor); the noise column says n/a, never 0.0%, when no noise is known.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/compare.sh

# A one-node fleet.json as `nodescale fleet` writes it (median = the node's value, noise 0,
# nodes_measured 1), its node file beside it with every time_s.cv set to CV.
one_node_fleet() { # provider fixture, folder, cv
  mkdir -p "$2/nodes/n"
  jq --argjson cv "$3" '.context.host = "vm" | .results[].time_s.cv = $cv' "$1" >"$2/nodes/n/results.json"
  jq '{schema: "nodescale/1", kind: "fleet", context: {host: "vm"},
       nodes: [{name: "n", host: "vm", rank: 0, status: "ok", results: "nodes/n/results.json"}],
       benchmarks: [.results[] | (.family == "stream" or .family == "reduce") as $bw |
         {id, class: (if .family == "stream" then "stream/bandwidth" else .family end),
          unit: (if $bw then "GB/s" else "GFLOP/s" end), nodes_measured: 1,
          median: (if $bw then .gbytes_per_s else .gflops end), mad: 0, noise: 0, tested: false,
          values: {n: (if $bw then .gbytes_per_s else .gflops end)}}]}' "$1" >"$2/fleet.json"
}
one_node_fleet $fx/provider_x.json "$tmp/fx" 0.4
one_node_fleet $fx/provider_y.json "$tmp/fy" 0.4

$bin compare "$tmp/fx/fleet.json" "$tmp/fy/fleet.json" --out "$tmp/c" >"$tmp/c.md" 2>"$tmp/c.err" ||
  { echo "FAIL: compare of two fleets"; cat "$tmp/c.err"; fails=$((fails + 1)); }
$bin compare "$tmp/fx/nodes/n/results.json" "$tmp/fy/nodes/n/results.json" --out "$tmp/n" \
  >"$tmp/n.md" 2>"$tmp/n.err" || { echo "FAIL: compare of the node files"; cat "$tmp/n.err"; fails=$((fails + 1)); }
jq -e 'all(.benchmarks[]; .noise == 0.4 and .noise_within == 0.4 and .noise_between == null
           and .distinguishes == false)' "$tmp/c/compare.json" >/dev/null ||
  { echo "FAIL: one-node fleets: noise is not the nodes' own CV"; jq -c '.benchmarks[0]' "$tmp/c/compare.json"; fails=$((fails + 1)); }
[ "$(jq -r .verdict "$tmp/c/compare.json")" = "$(jq -r .verdict "$tmp/n/compare.json")" ] ||
  { echo "FAIL: fleets and their node files disagree"; jq -r .verdict "$tmp/c/compare.json" "$tmp/n/compare.json"; fails=$((fails + 1)); }
grep -q '| 40.0% | no |$' "$tmp/c.md" || { echo "FAIL: noise column"; fails=$((fails + 1)); }

# Without the node files the within-node noise is unknown: a warning, and n/a in the table.
rm -r "$tmp/fx/nodes" "$tmp/fy/nodes"
$bin compare "$tmp/fx/fleet.json" "$tmp/fy/fleet.json" --out "$tmp/u" >"$tmp/u.md" 2>"$tmp/u.err" ||
  { echo "FAIL: compare without node files"; cat "$tmp/u.err"; fails=$((fails + 1)); }
grep -q 'warning: .*node results file(s) not readable' "$tmp/u.err" || { echo "FAIL: no warning"; fails=$((fails + 1)); }
grep -q '| n/a | ' "$tmp/u.md" && ! grep -q '| 0.0% | ' "$tmp/u.md" ||
  { echo "FAIL: unknown noise not n/a"; grep '^| `' "$tmp/u.md" | head -2; fails=$((fails + 1)); }
jq -e 'all(.benchmarks[]; .noise == null)' "$tmp/u/compare.json" >/dev/null ||
  { echo "FAIL: unknown noise not null"; fails=$((fails + 1)); }

[ $fails -eq 0 ] && echo "compare_noise: ok"
exit $((fails > 0))
