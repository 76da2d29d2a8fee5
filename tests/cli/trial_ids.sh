#!/usr/bin/env bash
# Product comments say why, not which internal trial found it (review 16 #17): no "trial 14b #16"
# or "t15#10" in the C sources of harness/, kernels/, roofline/, reports/, cluster/ and fleet/
# (a reader outside cannot resolve them; the reason, or the test that guards it, stands
# instead), and every tests/cli/*.sh or tests/unit/test_*.c such a comment names exists.
set -u
cd "$(dirname "$0")/../.."
command -v git >/dev/null && git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  { echo "skip: not a git checkout"; exit 77; }
fails=0
hits=$(git grep -nIiE '\btrial [0-9]+[a-z]?\b|\bt[0-9]+[ab]?#[0-9]' -- \
  'harness/*.[ch]' 'kernels/*.[ch]' 'roofline/*.[ch]' 'reports/*.[ch]' 'cluster/*.[ch]' \
  'fleet/*.[ch]' | cut -c1-160)
[ -n "$hits" ] && { echo "FAIL: internal trial ids in product comments:"; echo "$hits"; fails=$((fails + 1)); }
# An id split across two comment lines ("(trial\n * 14b #7"): each file with its comment line
# breaks (newline, spaces, '*') joined into one space.
split=$(git ls-files -- 'harness/*.[ch]' 'kernels/*.[ch]' 'roofline/*.[ch]' 'reports/*.[ch]' \
  'cluster/*.[ch]' 'fleet/*.[ch]' | xargs perl -0777 -ne 's/[ \t]*\n[ \t]*\*?[ \t]*/ /g;
  while (/(\btrial [0-9]+[a-z]?\b|\bt[0-9]+[ab]?#[0-9])/gi) { print "$ARGV: $1\n" }' | sort -u)
[ -n "$split" ] && { echo "FAIL: internal trial ids across comment lines:"; echo "$split"; fails=$((fails + 1)); }
for t in $(git grep -hoIE '\b[a-z_0-9]+\.sh\b|\btest_[a-z_0-9]+\.c\b' -- \
  'harness/*.[ch]' 'kernels/*.[ch]' 'roofline/*.[ch]' 'reports/*.[ch]' 'cluster/*.[ch]' \
  'fleet/*.[ch]' | sort -u); do
  [ -e "tests/cli/$t" ] || [ -e "tests/unit/$t" ] || [ -e "scripts/$t" ] || [ -e "examples/$t" ] ||
    git ls-files | grep -q "/$t\$" || { echo "FAIL: a comment names $t, which does not exist"; fails=$((fails + 1)); }
done
[ $fails -eq 0 ] && echo "trial_ids: ok"
[ $fails -eq 0 ]
