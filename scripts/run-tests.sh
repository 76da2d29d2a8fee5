#!/usr/bin/env bash
# Runs every test: the cmocka binaries in bin/tests (and bin/asan/tests when built), then the
# shell tests tests/cli/*.sh. Sums cmocka's per-binary counts and ends with one line
# "N passed, N failed, N skipped"; exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/.."
mkdir -p tests/out
pass=0 fail=0 skip=0 failed_names=()

count() { # $1 = log file: add cmocka's counts
  local p f s
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n1)
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n1)
  s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$1" | tail -n1)
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skip=$((skip + ${s:-0}))
}

for t in bin/tests/test_* bin/asan/tests/test_*; do
  [ -x "$t" ] || continue
  log=tests/out/$(echo "$t" | tr / _).log
  echo "== $t" >&2
  if [ "${t#bin/asan}" != "$t" ]; then
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
      OMP_NUM_THREADS=2 "$t" >"$log" 2>&1
  else
    "$t" >"$log" 2>&1
  fi
  rc=$?
  count "$log"
  if [ $rc -ne 0 ]; then
    failed_names+=("$t")
    grep -E "FAILED|ERROR|error|Assert|runtime error" "$log" | head -n 20 >&2
    # A crash before cmocka's summary counts as one failure.
    grep -q '^\[  FAILED  \]' "$log" || fail=$((fail + 1))
  fi
  tail -n 3 "$log" >&2
done

for t in tests/cli/*.sh; do
  [ -f "$t" ] || continue
  log=tests/out/$(basename "$t").log
  echo "== $t" >&2
  if bash "$t" >"$log" 2>&1; then
    pass=$((pass + 1)); echo "ok" >&2
  else
    rc=$?
    if [ $rc -eq 77 ]; then skip=$((skip + 1)); tail -n 1 "$log" >&2
    else fail=$((fail + 1)); failed_names+=("$t"); tail -n 20 "$log" >&2; fi
  fi
done

[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]}" >&2
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ ${#failed_names[@]} -eq 0 ]
