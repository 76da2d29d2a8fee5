#!/usr/bin/env bash
# `nodescale run` argument checks that must refuse before measuring anything: --kernels names a
# kernel run does not select by name, OMP_NUM_THREADS larger than the CPUs, an --out folder that
# already holds a run (it must stay untouched). Each: exit 2, one line on stderr. And bench's
# default thread count from OMP_NUM_THREADS.
set -u
cd "$(dirname "$0")/../.."
ns=bin/nodescale
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

expect2() { # description, then the command
  local what=$1; shift
  timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q "error:" "$tmp/err"; then
    echo "FAIL: $what: rc=$rc, $lines stderr lines:"; cat "$tmp/err"; fails=$((fails + 1))
  else
    echo "ok: $what: $(cat "$tmp/err")"
  fi
}

expect2 "--kernels names a GEMM kernel" $ns run --quick --kernels dgemm --out "$tmp/k1"
expect2 "--kernels names a peak kernel" $ns run --quick --kernels stream_triad,peak_dp_fma --out "$tmp/k2"
expect2 "--kernels prefix of a name" $ns run --quick --kernels stream_tri --out "$tmp/k3"
expect2 "OMP_NUM_THREADS above the CPUs" env OMP_NUM_THREADS=$(($(nproc) + 1)) $ns run --quick --out "$tmp/o1"
for d in k1 k2 k3 o1; do
  [ -e "$tmp/$d" ] && { echo "FAIL: $d was created"; fails=$((fails + 1)); }
done

mkdir -p "$tmp/prev"
echo '{"previous": true}' >"$tmp/prev/results.json"
echo 'old report' >"$tmp/prev/report.md"
expect2 "--out holding a previous run" $ns run --quick --out "$tmp/prev"
if [ "$(cat "$tmp/prev/results.json")" != '{"previous": true}' ] ||
   [ "$(cat "$tmp/prev/report.md")" != 'old report' ] || [ -e "$tmp/prev/run.log" ]; then
  echo "FAIL: the previous run's folder was changed"; ls -l "$tmp/prev"; fails=$((fails + 1))
fi

# OMP_NUM_THREADS is the default thread count of bench too (it was recorded but ignored).
OMP_NUM_THREADS=1 $ns bench stream_triad --n 65536 --samples 9 --min-time 0.001 --json "$tmp/b.json" \
  >/dev/null 2>&1 || { echo "FAIL: bench with OMP_NUM_THREADS=1"; fails=$((fails + 1)); }
if [ "$(jq '.results[0].threads' "$tmp/b.json" 2>/dev/null)" != 1 ]; then
  echo "FAIL: OMP_NUM_THREADS=1 ran $(jq '.results[0].threads' "$tmp/b.json") threads"; fails=$((fails + 1))
else
  echo "ok: bench honours OMP_NUM_THREADS=1"
fi
expect2 "bench: OMP_NUM_THREADS above the CPUs" env OMP_NUM_THREADS=$(($(nproc) + 1)) $ns bench stream_triad

[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "all ok"
