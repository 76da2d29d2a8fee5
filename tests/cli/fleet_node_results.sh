#!/usr/bin/env bash
# What a node's results say reaches the fleet's verdict (trial 19d): a node with failed or
# invalid results is named and flagged on each of them, and the fleet is not "complete" (#1);
# failed or refused ranks make it "incomplete" (#5); report.md's Nodes table escapes a '|'
# (#15). Nodes are fixtures (--from-results).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/mpi.sh
fx=$fixtures

# 1. node 3: dgemm invalid, stream_triad failed; node 1 in a second fleet: every result failed.
mkdir -p "$tmp/inv"
for r in 0 1 2 3; do cp "$fx/node$r.json" "$tmp/inv/n$r.json"; done
jq '(.results[] | select(.id | startswith("dgemm")) | .validated) = false
    | (.results[] | select(.id | startswith("dgemm")) | .status) = "invalid: max error 3e+02"
    | (.results[] | select(.id | startswith("stream_triad")) | .status) = "failed: timed out"' \
  "$fx/node3.json" >"$tmp/inv/n3.json"
fleet4 invf "$tmp/inv/n%r.json" --fail-on-straggler
rc=$?
[ $rc -eq 1 ] || fail "invalid: exit $rc, want 1 (--fail-on-straggler)"
jq -e '(.status | startswith("incomplete: 1 node(s) with failed or invalid results"))
       and .nodes[3].status == "ok" and (.nodes[3].warning | test("2 benchmarks failed or invalid"))
       and ([.nodes[3].failed_benchmarks[].status] | sort == ["failed: timed out", "invalid: max error 3e+02"])
       and ([.stragglers.flagged[] | select(.name == "'"$host"'-r3") | .benchmarks[].id | split("/")[0]]
            | sort == ["dgemm", "stream_triad"])
       and ([.benchmarks[] | select(.failed) | .failed["'"$host"'-r3"]] | length == 2)' \
  "$tmp/invf/fleet.json" >/dev/null || fail "invalid: fleet.json"
grep -q 'failed or invalid' "$tmp/invf/report.md" || fail "invalid: report.md does not say so"
grep -q "warning: rank 3 ($host-r3): 2 benchmarks failed or invalid" "$tmp/invf.err" ||
  fail "invalid: no warning on stderr"
# Without --fail-on-straggler too: every "incomplete" status exits 1, a node with failed or
# invalid results and a node whose run was interrupted.
fleet4 invn "$tmp/inv/n%r.json"
rc=$?
[ $rc -eq 1 ] || fail "invalid results: exit $rc, want 1 (incomplete)"
jq '.interrupted = true' "$fx/node1.json" >"$tmp/inv/i1.json"
for r in 0 2 3; do cp "$fx/node$r.json" "$tmp/inv/i$r.json"; done
fleet4 intr "$tmp/inv/i%r.json"
rc=$?
[ $rc -eq 1 ] || fail "interrupted node: exit $rc, want 1 (incomplete)"
jq -e '.status == "incomplete: a node'"'"'s run was interrupted"' "$tmp/intr/fleet.json" >/dev/null ||
  fail "interrupted node: status $(jq -c .status "$tmp/intr/fleet.json")"
mkdir -p "$tmp/bad"
cp "$fx/node0.json" "$tmp/bad/n0.json"
jq '.results[].status = "failed: x"' "$fx/node1.json" >"$tmp/bad/n1.json"
cp "$fx/node2.json" "$tmp/bad/n2.json"
cp "$fx/node3.json" "$tmp/bad/n3.json"
fleet4 badf "$tmp/bad/n%r.json"
rc=$?
[ $rc -eq 1 ] || fail "all failed: exit $rc, want 1"
jq -e '.status == "incomplete: 1 node(s) failed" and .nodes[1].status == "failed"
       and (.nodes[1].reason | test("no measured benchmark")) and .node_counts.ok == 3' \
  "$tmp/badf/fleet.json" >/dev/null || fail "all failed: node 1 not failed, or status"
grep -q "rank 1 ($host-r1): failed: no measured" "$tmp/badf.err" || fail "all failed: message"
grep -q "$host-r1: $host-r1\|compare takes" "$tmp/badf.err" && fail "all failed: name doubled or the wrong command (#17)"

# 5. rank 2's file missing: failed, and the status says so. 15. its reason (the path, with a
#    '|') cannot split the Nodes table's cells in report.md.
mkdir -p "$tmp/t|wo"
cp "$fx/node0.json" "$tmp/t|wo/p0.json"
cp "$fx/node1.json" "$tmp/t|wo/p1.json"
timeout -k 2 60 $MPIRUN -np 3 $bin fleet --quick --ranks-per-node 3 --no-collectives \
  --from-results "$tmp/t|wo/p%r.json" --out "$tmp/fail1" >"$tmp/fail1.out" 2>"$tmp/fail1.err"
[ $? -eq 1 ] || fail "failed rank: exit status"
jq -e '.status == "incomplete: 1 node(s) failed" and .node_counts.failed == 1' \
  "$tmp/fail1/fleet.json" >/dev/null || fail "failed rank: status $(jq -c .status "$tmp/fail1/fleet.json")"
cells=$(sed -n '/^## Nodes/,/^## /p' "$tmp/fail1/report.md" | grep '^| ' | sed 's/\\|/E/g' |
  awk -F'|' '{print NF}' | sort -u)
[ "$cells" = 9 ] || fail "report.md Nodes table: rows with $(echo $cells) fields, want 9 (7 cells)"

[ $fails -eq 0 ] && echo "fleet_node_results: ok"
[ $fails -eq 0 ]
