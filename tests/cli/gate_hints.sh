#!/usr/bin/env bash
# CLI tests of what `nodescale gate` tells the user beyond the verdict (trial 4):
# --allow-build-change and the machine check of virtualization and memory (defect 14).
# Small inputs are written by mk below.
set -u
cd "$(dirname "$0")/../.."
NS=${NS:-bin/nodescale}
[ -x $NS ] || { echo "skip: $NS not built"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# mk OUT [key=value...]: a results file, one result per id (ids='a;b'), 9 samples around 1 ms
# times scale with relative spread cv; ctx.X=JSON sets context field X (dots for nesting);
# top.X=JSON sets a top-level field.
mk() {
    python3 - "$@" <<'PY'
import json, sys
out, args = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
ids = args.pop("ids", "k1/avx2/dp/t1/n=4096").split(";")
scale, cv = float(args.pop("scale", "1")), float(args.pop("cv", "0.01"))
ctx = {"cpu": {"vendor": "GenuineIntel", "model": "Xeon", "isa": ["avx2"], "cores": 2},
       "memory": {"total_bytes": 25276510208}, "virtualized": True, "hypervisor": "KVM",
       "compiler": "gcc 12.2.0", "cflags": "-O3", "threads": 1, "env": {}}
doc = {"schema": "nodescale/1", "context": ctx, "results": []}
for k, v in args.items():
    where, path = k.split(".", 1)
    node = ctx if where == "ctx" else doc
    *parents, leaf = path.split(".")
    for p in parents:
        node = node.setdefault(p, {})
    node[leaf] = json.loads(v)
offs = [0, 1, -1, 2, -2, 0.5, -0.5, 1.5, -1.5]
for i in ids:
    s = [1e-3 * scale * (1 + cv * o / 1.2) for o in offs]
    m = sum(s) / len(s)
    sd = (sum((x - m) ** 2 for x in s) / (len(s) - 1)) ** 0.5
    doc["results"].append({"id": i, "threads": 1, "samples_s": s, "status": "ok",
                           "time_s": {"median": sorted(s)[4], "cv": sd / m}})
json.dump(doc, open(out, "w"))
PY
}

gate() { # gate WANT_RC DESCRIPTION ARGS...: runs the gate, output in $T/out and $T/err
    local want=$1 what=$2; shift 2
    "$NS" gate "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc -ne "$want" ]; then
        bad "$what: exit $rc, want $want"; sed 's/^/  | /' "$T/out" "$T/err" | head -20; return 1
    fi
    echo "ok: $what"
}
has() { grep -qF -- "$2" "$1" || { bad "$3: no '$2' in $(basename "$1")"; sed 's/^/  | /' "$1" | head -20; }; }
hasnt() { ! grep -qF -- "$2" "$1" || bad "$3: unexpected '$2' in $(basename "$1")"; }

mk "$T/quiet.json"

# --- 14: --allow-build-change; virtualization and memory are part of the machine -------------
mk "$T/cflags.json" 'ctx.cflags="-O2"' 'ctx.compiler="clang 16"'
gate 2 "14: another build is refused by default" "$T/cflags.json" "$T/quiet.json"
has "$T/err" "or pass --allow-build-change: only the build differs" "14: hint"
gate 0 "14: --allow-build-change accepts compiler and flags" --allow-build-change "$T/cflags.json" "$T/quiet.json" --markdown "$T/b.md"
has "$T/out" "allowed by --allow-build-change" "14: build differences listed"
has "$T/out" 'cflags: old "-O2", new "-O3"' "14: cflags listed"
hasnt "$T/out" "CONTEXT MISMATCH" "14: no mismatch warning"
has "$T/b.md" 'The two builds differ in' "14: markdown lists the build"
mk "$T/cpu.json" 'ctx.cflags="-O2"' 'ctx.cpu.model="EPYC"'
gate 2 "14: --allow-build-change still refuses another CPU" --allow-build-change "$T/cpu.json" "$T/quiet.json"
has "$T/err" "cpu.model differs" "14: cpu named"
hasnt "$T/err" "cflags" "14: the allowed build difference is not a reason"
mk "$T/mem.json" 'ctx.memory.total_bytes=1099511627776'
gate 2 "14: another memory size is another machine" "$T/mem.json" "$T/quiet.json"
has "$T/err" "memory.total_bytes differs (baseline 1099511627776, current 25276510208)" "14: memory"
gate 2 "14: ... also with --allow-build-change" --allow-build-change "$T/mem.json" "$T/quiet.json"
mk "$T/mem1.json" 'ctx.memory.total_bytes=25000000000'
gate 0 "14: MemTotal 1% apart (kernel reservations) is the same machine" "$T/mem1.json" "$T/quiet.json"
mk "$T/bare.json" 'ctx.virtualized=false' 'ctx.hypervisor=null'
gate 2 "14: bare metal against a VM is refused" "$T/bare.json" "$T/quiet.json"
has "$T/err" "virtualized differs (baseline false, current true)" "14: virtualized"
gate 2 "14: --allow-build-change applies to files, not --ab" --ab /bin/true /bin/true --allow-build-change

[ $fails -eq 0 ] && echo "gate_hints: all passed" || echo "gate_hints: $fails failed"
[ $fails -eq 0 ]
