#!/usr/bin/env bash
# The shell tests use their shared files (review 16 #30): every library in tests/cli/lib sources
# common.sh, so "fail" is the function that counts into "fails" in every script, never a
# variable of its own; a script that sources a library does not make a second temporary folder
# and trap of its own.
set -u
cd "$(dirname "$0")/../.."
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
for l in tests/cli/lib/*.sh; do
  [ "$l" = tests/cli/lib/common.sh ] && continue
  grep -q '^\. tests/cli/lib/common\.sh$' "$l" || fail "$l does not source common.sh"
done
for s in $(grep -l '^\. tests/cli/lib/' tests/cli/*.sh tests/cli/lib/*.sh); do
  grep -nE '(^|[;{ ])fail=|\$fail\b' "$s" | sed "s|^|FAIL: $s: 'fail' as a variable: |" | grep . &&
    fails=$((fails + 1))
  [ "$s" = tests/cli/lib/common.sh ] && continue
  grep -nE '^(tmp|T)=\$\(mktemp -d\)|^trap .rm -rf' "$s" | sed "s|^|FAIL: $s: a second temporary folder: |" |
    grep . && fails=$((fails + 1))
done
[ $fails -eq 0 ] && echo "test_libs_shared: ok"
[ $fails -eq 0 ]
