#!/usr/bin/env bash
# Every ns_* function a header declares is used: some line other than its declaration and its
# definition (both start at column 0) names it, in the sources, bench/ or tests/. A function
# nothing calls is deleted, not kept "for later".
set -u
cd "$(dirname "$0")/../.."
command -v git >/dev/null && git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  { echo "skip: not a git checkout"; exit 77; }
dead=""
for h in $(git ls-files '*.h'); do
  for f in $(grep -oP '^[a-z][\w \*]*?\b\K(ns_\w+)(?=\()' "$h" | sort -u); do
    uses=$(git grep -hwI "$f" -- '*.c' '*.h' | grep -vcE "^[a-z].*\b$f\(")
    [ "$uses" -eq 0 ] && dead+="$h: $f"$'\n'
  done
done
if [ -n "$dead" ]; then
  echo "FAIL: declared but never used:"
  printf '%s' "$dead"
  exit 1
fi
echo "dead_functions: ok"
