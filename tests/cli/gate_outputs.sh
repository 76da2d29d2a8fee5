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
need_jq=1
. tests/cli/lib/common.sh
F=$PWD/tests/fixtures/gate
FX=tests/fixtures/fleet
one_error() { # what, stderr file: exactly one line, "nodescale gate|compare: error: ..."
    [ "$(wc -l <"$2")" -eq 1 ] && grep -q '^nodescale [a-z]*: error: ' "$2" ||
        { fail "$1: want one error line, got:"; cat "$2"; }
}

# --- #4: a dangling link to another report's file ---------------------------------------------
mkdir "$tmp/d" "$tmp/d/sub"
ln -s o.json "$tmp/d/lo.json"
ln -s ../o2.json "$tmp/d/sub/l2"
ln -s l3b "$tmp/d/l3a" && ln -s o3.json "$tmp/d/l3b"
for c in "--json $tmp/d/o.json --markdown $tmp/d/lo.json" \
         "--markdown $tmp/d/lo.json --junit $tmp/d/o.json" \
         "--json $tmp/d/o2.json --junit $tmp/d/sub/l2" \
         "--json $tmp/d/l3a --markdown $tmp/d/o3.json"; do
    # shellcheck disable=SC2086
    "$ns" gate $F/b24_base.json $F/b24_cand.json --quiet $c >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q 'name the same file' "$tmp/err" || fail "dangling link ($c): exit $rc"
    one_error "dangling link ($c)" "$tmp/err"
    [ -e "$tmp/d/o.json" ] || [ -e "$tmp/d/o2.json" ] || [ -e "$tmp/d/o3.json" ] &&
        fail "dangling link ($c): a report was written"
    rm -f "$tmp"/d/o*.json
done
# Distinct files through links still work.
"$ns" gate $F/b24_base.json $F/b24_cand.json --quiet --json "$tmp/d/lo.json" --markdown "$tmp/d/m.md" \
    2>"$tmp/err" || fail "a dangling link to its own file: exit $?"
jq -e '.schema == "nodescale-gate/1"' "$tmp/d/o.json" >/dev/null && grep -q 'nodescale gate' "$tmp/d/m.md" ||
    fail "a dangling link to its own file: reports not written"

# --- #11: "-" is standard output ------------------------------------------------------------
mkdir "$tmp/cwd"
for o in --json --junit --markdown; do
    (cd "$tmp/cwd" && "$ns" gate $F/b24_base.json $F/b24_cand.json $o - >"$tmp/out" 2>"$tmp/err")
    rc=$?
    [ $rc -eq 0 ] || fail "$o -: exit $rc"
    [ -e "$tmp/cwd/-" ] && { fail "$o - wrote a file named '-'"; rm -f "$tmp/cwd/-"; }
    grep -q '^verdict: PASS' "$tmp/err" || fail "$o -: the table is not on stderr"
    grep -q '^verdict:' "$tmp/out" && fail "$o -: the table is mixed into stdout"
    case $o in
    --json) jq -e '.schema == "nodescale-gate/1"' "$tmp/out" >/dev/null || fail "--json -: no JSON on stdout" ;;
    --junit) head -n 1 "$tmp/out" | grep -q '^<?xml' && grep -q '</testsuites>' "$tmp/out" || fail "--junit -: no XML on stdout" ;;
    --markdown) grep -q 'nodescale gate' "$tmp/out" || fail "--markdown -: no Markdown on stdout" ;;
    esac
done
# With a file report beside it, and --quiet: stdout holds only the report.
(cd "$tmp/cwd" && "$ns" gate $F/b24_base.json $F/b24_cand_slow.json --quiet --json - --junit g.xml >"$tmp/out" 2>"$tmp/err")
rc=$?
[ $rc -eq 1 ] && jq -e '.schema == "nodescale-gate/1"' "$tmp/out" >/dev/null && [ -s "$tmp/cwd/g.xml" ] ||
    fail "--json - --junit FILE on a regression: exit $rc"
[ -e "$tmp/cwd/-" ] && fail "--json - with --junit FILE wrote a file named '-'"
(cd "$tmp/cwd" && "$ns" gate $F/b24_base.json $F/b24_cand.json --json - --markdown - >"$tmp/out" 2>"$tmp/err")
rc=$?
[ $rc -eq 2 ] && grep -q 'both name standard output' "$tmp/err" && [ ! -s "$tmp/out" ] ||
    fail "two reports to '-': exit $rc"
one_error "two reports to '-'" "$tmp/err"
"$ns" gate --help | grep -q 'is stdout' || fail "gate --help does not say '-' is stdout"

# --- #15: a standard output that cannot be written is exit 1 -----------------------------------
if [ -c /dev/full ]; then
    for pair in b24_cand.json b24_cand_slow.json; do
        "$ns" gate $F/b24_base.json $F/$pair >/dev/full 2>"$tmp/err"
        rc=$?
        [ $rc -eq 1 ] && grep -q 'cannot write to stdout' "$tmp/err" || fail "gate $pair >/dev/full: exit $rc, want 1"
        one_error "gate $pair >/dev/full" "$tmp/err"
    done
    (cd "$tmp/cwd" && "$ns" gate $F/b24_base.json $F/b24_cand.json --quiet --json - >/dev/full 2>"$tmp/err")
    rc=$?
    [ $rc -eq 1 ] || fail "gate --json - >/dev/full: exit $rc, want 1"
    one_error "gate --json - >/dev/full" "$tmp/err"
    "$ns" compare $FX/provider_x.json $FX/provider_y.json --out "$tmp/c" >/dev/full 2>"$tmp/err"
    rc=$?
    grep -v '^nodescale compare: note:' "$tmp/err" >"$tmp/err2"
    [ $rc -eq 1 ] || fail "compare >/dev/full: exit $rc, want 1"
    one_error "compare >/dev/full" "$tmp/err2"
    [ -e "$tmp/c" ] && fail "compare >/dev/full left its --out folder"
else
    echo "note: /dev/full is not a character device: #15 not checked"
fi

# --- #19: gate --ab wants regular executable files ------------------------------------------
mkdir "$tmp/bindir"
: >"$tmp/noexec"
for c in "$tmp/bindir $ns" "$ns $tmp/bindir" "/dev/null $ns" "$tmp/noexec $ns"; do
    # shellcheck disable=SC2086
    "$ns" gate --ab $c k1 --rounds 6 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "--ab $c: exit $rc, want 2"
    one_error "--ab $c" "$tmp/err"
    grep -q 'round 1' "$tmp/err" && fail "--ab $c: refused only in round 1"
done
grep -q "is not executable" "$tmp/err" || fail "--ab noexec: reason not named"
"$ns" gate --ab "$tmp/bindir" "$ns" k1 --rounds 6 2>&1 | grep -q "OLD_BINARY $tmp/bindir is a folder" ||
    fail "--ab folder: reason not named"

# --- review 16 #26: the text table, the JSON report and the Markdown state one rule, and give
# each row the same n cell ("-" for a benchmark only in current) --------------------------------
jq 'del(.results[0])' $F/b24_base.json >"$tmp/base_less.json"
same_rule_and_n() { # what, gate arguments...: gate's exit status is not the point here
    local what=$1; shift
    "$ns" gate "$@" --json "$tmp/r.json" --markdown "$tmp/r.md" >"$tmp/r.txt" 2>"$tmp/err"
    python3 - "$tmp/r.txt" "$tmp/r.json" "$tmp/r.md" <<'PY' || fail "$what: rule or n cells differ"
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
same_rule_and_n "files, a benchmark only in current" "$tmp/base_less.json" $F/b24_cand.json
same_rule_and_n "A/B" --ab $F/fake-bench.sh $F/fake-bench.sh k1 --rounds 6

[ $fails -eq 0 ] && echo "gate_outputs: ok"
exit $((fails > 0))
