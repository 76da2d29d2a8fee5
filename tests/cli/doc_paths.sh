#!/usr/bin/env bash
# Every repository file a comment, message or the README names (harness/result.h,
# cluster/plot.c, tests/cli/<x>.sh, ...) exists: a renamed or mistyped path fails here.
# Placeholders (cluster/presets/NAME.json) and the tail of a glob (results/*-fleet/fleet.json)
# are not paths.
set -u
cd "$(dirname "$0")/../.."
command -v git >/dev/null && git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  { echo "skip: not a git checkout"; exit 77; }
dirs='harness|cluster|fleet|reports|roofline|kernels|include|tests|bench|scripts|examples'
bad=""
while IFS= read -r hit; do
  p=${hit#*:}
  case $p in *NAME*) continue ;; esac
  [ -e "$p" ] || bad+="${hit%%:*}: $p"$'\n'
done < <(git grep -oIP "(?<![\w/*.-])(?:$dirs)/[\w/.-]+\.(?:c|h|sh|py|json|md)\b" -- . | sort -u)
if [ -n "$bad" ]; then
  echo "FAIL: paths that do not exist:"
  printf '%s' "$bad"
  exit 1
fi
echo "doc_paths: ok"
