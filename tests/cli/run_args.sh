#!/usr/bin/env bash
# `nodescale run` argument checks that must refuse before measuring anything: --kernels names a
# kernel run does not select by name, OMP_NUM_THREADS larger than the CPUs, an --out folder that
# already holds a run (it must stay untouched). Each: exit 2, one line on stderr.
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

[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "all ok"
