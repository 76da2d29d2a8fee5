#!/usr/bin/env bash
# CLI tests of gate's outputs and binaries (trial 14b):
#  #4  two reports into one file through a dangling symbolic link are refused (the link's
#      target is the file a write creates);
#  #11 "-" is standard output for --json/--junit/--markdown (it wrote a file named "-"), at most
#      one of them, and the table then goes to stderr;
#  #15 a standard output that cannot be written exits 1 (a write failed; never a pass), as
#      list, bench, cluster and roofline do, in gate and compare (they exited 2);
#  #19 gate --ab refuses a folder (or a non-regular file) as a binary up front, in one line.
set -u
cd "$(dirname "$0")/../.."
NS=${NS:-bin/nodescale}
F=$PWD/tests/fixtures/gate
FX=tests/fixtures/fleet
[ -x "$NS" ] || { echo "skip: $NS not built"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed (scripts/install-deps.sh)"; exit 77; }
NS=$(cd "$(dirname "$NS")" && pwd)/$(basename "$NS")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
one_error() { # what, stderr file: exactly one line, "nodescale gate|compare: error: ..."
    [ "$(wc -l <"$2")" -eq 1 ] && grep -q '^nodescale [a-z]*: error: ' "$2" ||
        { fail "$1: want one error line, got:"; cat "$2"; }
}

# --- #4: a dangling link to another report's file ---------------------------------------------
mkdir "$T/d" "$T/d/sub"
ln -s o.json "$T/d/lo.json"
ln -s ../o2.json "$T/d/sub/l2"
ln -s l3b "$T/d/l3a" && ln -s o3.json "$T/d/l3b"
for c in "--json $T/d/o.json --markdown $T/d/lo.json" \
         "--markdown $T/d/lo.json --junit $T/d/o.json" \
         "--json $T/d/o2.json --junit $T/d/sub/l2" \
         "--json $T/d/l3a --markdown $T/d/o3.json"; do
    # shellcheck disable=SC2086
    "$NS" gate $F/b24_base.json $F/b24_cand.json --quiet $c >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q 'name the same file' "$T/err" || fail "dangling link ($c): exit $rc"
    one_error "dangling link ($c)" "$T/err"
    [ -e "$T/d/o.json" ] || [ -e "$T/d/o2.json" ] || [ -e "$T/d/o3.json" ] &&
        fail "dangling link ($c): a report was written"
    rm -f "$T"/d/o*.json
done
# Distinct files through links still work.
"$NS" gate $F/b24_base.json $F/b24_cand.json --quiet --json "$T/d/lo.json" --markdown "$T/d/m.md" \
    2>"$T/err" || fail "a dangling link to its own file: exit $?"
jq -e '.schema == "nodescale-gate/1"' "$T/d/o.json" >/dev/null && grep -q 'nodescale gate' "$T/d/m.md" ||
    fail "a dangling link to its own file: reports not written"

# --- #11: "-" is standard output ------------------------------------------------------------
mkdir "$T/cwd"
for o in --json --junit --markdown; do
    (cd "$T/cwd" && "$NS" gate $F/b24_base.json $F/b24_cand.json $o - >"$T/out" 2>"$T/err")
    rc=$?
    [ $rc -eq 0 ] || fail "$o -: exit $rc"
    [ -e "$T/cwd/-" ] && { fail "$o - wrote a file named '-'"; rm -f "$T/cwd/-"; }
    grep -q '^verdict: PASS' "$T/err" || fail "$o -: the table is not on stderr"
    grep -q '^verdict:' "$T/out" && fail "$o -: the table is mixed into stdout"
    case $o in
    --json) jq -e '.schema == "nodescale-gate/1"' "$T/out" >/dev/null || fail "--json -: no JSON on stdout" ;;
    --junit) head -n 1 "$T/out" | grep -q '^<?xml' && grep -q '</testsuites>' "$T/out" || fail "--junit -: no XML on stdout" ;;
    --markdown) grep -q 'nodescale gate' "$T/out" || fail "--markdown -: no Markdown on stdout" ;;
    esac
done
# With a file report beside it, and --quiet: stdout holds only the report.
(cd "$T/cwd" && "$NS" gate $F/b24_base.json $F/b24_cand_slow.json --quiet --json - --junit g.xml >"$T/out" 2>"$T/err")
rc=$?
[ $rc -eq 1 ] && jq -e '.schema == "nodescale-gate/1"' "$T/out" >/dev/null && [ -s "$T/cwd/g.xml" ] ||
    fail "--json - --junit FILE on a regression: exit $rc"
[ -e "$T/cwd/-" ] && fail "--json - with --junit FILE wrote a file named '-'"
(cd "$T/cwd" && "$NS" gate $F/b24_base.json $F/b24_cand.json --json - --markdown - >"$T/out" 2>"$T/err")
rc=$?
[ $rc -eq 2 ] && grep -q 'both name standard output' "$T/err" && [ ! -s "$T/out" ] ||
    fail "two reports to '-': exit $rc"
one_error "two reports to '-'" "$T/err"
"$NS" gate --help | grep -q 'is stdout' || fail "gate --help does not say '-' is stdout"

# --- #15: a standard output that cannot be written is exit 1 -----------------------------------
if [ -c /dev/full ]; then
    for pair in b24_cand.json b24_cand_slow.json; do
        "$NS" gate $F/b24_base.json $F/$pair >/dev/full 2>"$T/err"
        rc=$?
        [ $rc -eq 1 ] && grep -q 'cannot write to stdout' "$T/err" || fail "gate $pair >/dev/full: exit $rc, want 1"
        one_error "gate $pair >/dev/full" "$T/err"
    done
    (cd "$T/cwd" && "$NS" gate $F/b24_base.json $F/b24_cand.json --quiet --json - >/dev/full 2>"$T/err")
    rc=$?
    [ $rc -eq 1 ] || fail "gate --json - >/dev/full: exit $rc, want 1"
    one_error "gate --json - >/dev/full" "$T/err"
    "$NS" compare $FX/provider_x.json $FX/provider_y.json --out "$T/c" >/dev/full 2>"$T/err"
    rc=$?
    grep -v '^nodescale compare: note:' "$T/err" >"$T/err2"
    [ $rc -eq 1 ] || fail "compare >/dev/full: exit $rc, want 1"
    one_error "compare >/dev/full" "$T/err2"
    [ -e "$T/c" ] && fail "compare >/dev/full left its --out folder"
else
    echo "note: /dev/full is not a character device: #15 not checked"
fi

# --- #19: gate --ab wants regular executable files ------------------------------------------
mkdir "$T/bindir"
: >"$T/noexec"
for c in "$T/bindir $NS" "$NS $T/bindir" "/dev/null $NS" "$T/noexec $NS"; do
    # shellcheck disable=SC2086
    "$NS" gate --ab $c k1 --rounds 6 >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 2 ] || fail "--ab $c: exit $rc, want 2"
    one_error "--ab $c" "$T/err"
    grep -q 'round 1' "$T/err" && fail "--ab $c: refused only in round 1"
done
grep -q "is not executable" "$T/err" || fail "--ab noexec: reason not named"
"$NS" gate --ab "$T/bindir" "$NS" k1 --rounds 6 2>&1 | grep -q "OLD_BINARY $T/bindir is a folder" ||
    fail "--ab folder: reason not named"

# --- review 16 #26: the text table, the JSON report and the Markdown state one rule, and give
# each row the same n cell ("-" for a benchmark only in current) --------------------------------
jq 'del(.results[0])' $F/b24_base.json >"$T/base_less.json"
same_rule_and_n() { # what, gate arguments...: gate's exit status is not the point here
    local what=$1; shift
    "$NS" gate "$@" --json "$T/r.json" --markdown "$T/r.md" >"$T/r.txt" 2>"$T/err"
    python3 - "$T/r.txt" "$T/r.json" "$T/r.md" <<'PY' || fail "$what: rule or n cells differ"
import json, re, sys
txt = open(sys.argv[1]).read().splitlines()
rule = json.load(open(sys.argv[2]))["settings"]["rule"]
md = open(sys.argv[3]).read()
text_rule = [l[len("regression = "):] for l in txt if l.startswith("regression = ")]
assert text_rule == [rule], (text_rule, rule)
assert f"A benchmark regresses when {rule}." in md, rule
head = next(l for l in txt if l.startswith("benchmark "))
end = head.index("  verdict")  # the n column is right-aligned, 7 wide, just before it
rows = {}
for l in md.splitlines():
    m = re.match(r"^\| `([^`]*)` \|", l)
    if m:
        rows[m.group(1)] = [c.strip() for c in l.split(" | ")][6]
assert rows
for i, n in rows.items():
    line = next(l for l in txt if l.startswith(i + " "))
    assert line[end - 7:end].strip() == n, (i, line[end - 7:end], n)
PY
}
same_rule_and_n "files" $F/b24_base.json $F/b24_cand_slow.json --alpha 0.01 --threshold 10%
same_rule_and_n "files, a benchmark only in current" "$T/base_less.json" $F/b24_cand.json
same_rule_and_n "A/B" --ab $F/fake-bench.sh $F/fake-bench.sh k1 --rounds 6

[ $fails -eq 0 ] && echo "gate_outputs: ok"
exit $((fails > 0))
