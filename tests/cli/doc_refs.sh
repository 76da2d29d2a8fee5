#!/usr/bin/env bash
# README, comments and messages cite nothing a reader of this repository cannot open: no
# private bug lists ("field-bugs B09", a bare "(B09)"), numbered issues or seeds of an outside
# tracker ("issue 3", "seed 002"), and no files outside the repository (../shared/...,
# STYLE.md). Public sources (papers, tools, likwid issue #649) are fine.
set -u
cd "$(dirname "$0")/../.."
command -v git >/dev/null && git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  { echo "skip: not a git checkout"; exit 77; }
pat='field[- ]bugs?|\(B[0-9]{2}[),:]|[ (]B[0-9]{2}:|\bissue [0-9]|\bissue'"'"'s\b|\bseed 0[0-9]{2}\b|\.\./shared/|STYLE\.md'
hits=$(git grep -nIiE "$pat" -- . ':!tests/cli/doc_refs.sh' | cut -c1-160)
if [ -n "$hits" ]; then
  echo "FAIL: references to documents not in the repository:"
  echo "$hits"
  exit 1
fi
echo "doc_refs: ok"
