#!/usr/bin/env bash
# Trial 7 #2: `fleet --out DIR` never writes over another run's or fleet's folder: DIR holding a
# run's report.md or an earlier fleet (fleet.json, nodes/ with a node not of this fleet) is
# refused untouched (exit 2, one line); a new DIR is created with its parents.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/mpi.sh
fleet=(fleet --from-results "$fixtures/node0.json" --no-collectives)

mkdir -p "$tmp/run" "$tmp/old/nodes/ghost"
echo 'old report' >"$tmp/run/report.md"
echo '{}' >"$tmp/old/fleet.json"
echo '{}' >"$tmp/old/nodes/ghost/results.json"
for d in run old; do
  (cd "$tmp/$d" && ls -lR --time-style=full-iso) >"$tmp/before"
  timeout -k 2 60 $MPIRUN -np 1 $bin "${fleet[@]}" --out "$tmp/$d" >"$tmp/o" 2>"$tmp/e"
  rc=$?
  [ $rc -eq 2 ] && [ "$(grep -c "error:" "$tmp/e")" -eq 1 ] && grep -q "error: --out .* already holds" "$tmp/e" ||
    { echo "FAIL: fleet --out into $d: exit $rc: $(cat "$tmp/e")"; fails=$((fails + 1)); }
  (cd "$tmp/$d" && ls -lR --time-style=full-iso) | cmp -s - "$tmp/before" ||
    { echo "FAIL: fleet --out changed $d"; fails=$((fails + 1)); }
done

timeout -k 2 60 $MPIRUN -np 1 $bin "${fleet[@]}" --out "$tmp/new/f" >/dev/null 2>"$tmp/e" ||
  { echo "FAIL: fleet --out a new folder: $(tail -n 3 "$tmp/e")"; fails=$((fails + 1)); }
[ -s "$tmp/new/f/fleet.json" ] && [ -s "$tmp/new/f/report.md" ] ||
  { echo "FAIL: fleet --out new/f: $(ls -R "$tmp/new")"; fails=$((fails + 1)); }

[ $fails -eq 0 ] && echo "fleet out: ok"
exit $((fails > 0))
