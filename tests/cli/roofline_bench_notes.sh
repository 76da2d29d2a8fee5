#!/usr/bin/env bash
# Trial 9 #15: `roofline` on a `bench --json` file (no sweep) headed its summary "(unknown
# bytes)" although every result states bytes_policy "minimal": the results' policy is the
# roofline's when no sweep curve states one. A result judged at its id's threads for want of a
# ceiling at those it ran on said "so its fraction reads low" when it had no fraction at all.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh

"$ns" bench stream_triad --n 65536 --threads 1 --samples 3 --min-time 0.001 --json "$tmp/b.json" \
  >/dev/null 2>&1 || fail "bench stream_triad"
"$ns" roofline "$tmp/b.json" --no-plot --out "$tmp/r" >"$tmp/r.out" 2>&1 || fail "roofline: $(tail -1 "$tmp/r.out")"
grep -q '^roofline (minimal bytes)' "$tmp/r.out" || fail "summary: $(grep '^roofline' "$tmp/r.out")"
[ "$(jq -r .roofline.bytes_policy "$tmp/r/results.json")" = minimal ] ||
  fail "roofline.bytes_policy: $(jq -r .roofline.bytes_policy "$tmp/r/results.json")"

# A 96^3 dgemm asked for 2 threads runs on 1; the file has no ceilings: no fraction, so no
# "reads low".
if [ "$(nproc)" -ge 2 ]; then
  "$ns" bench dgemm --n 96 --threads 2 --samples 3 --min-time 0.001 --json "$tmp/g.json" \
    >/dev/null 2>&1 || fail "bench dgemm --n 96"
  "$ns" roofline "$tmp/g.json" --no-plot --out "$tmp/g" >"$tmp/g.out" 2>&1 || fail "roofline g"
  st=$(jq -r '.results[0].roof_status' "$tmp/g/results.json")
  case $st in
    *"ran on 1"*) ;;
    *) fail "dgemm 96 t2: roof_status does not say it ran on 1: $st" ;;
  esac
  case $st in *"reads low"*) fail "roof_status speaks of a fraction there is none of: $st" ;; esac
  grep -q "reads low" "$tmp/g.out" && fail "the summary speaks of a fraction: $(grep 'reads low' "$tmp/g.out")"
fi
[ $fails -eq 0 ] && echo "ok: roofline of bench files: the results' bytes_policy, no fraction no 'reads low'"
exit $((fails > 0))
