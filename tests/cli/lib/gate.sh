# Sourced by the gate's CLI tests: common.sh, then mk (below) writes a small results file;
# gate WANT_RC DESCRIPTION ARGS... runs
# `nodescale gate ARGS...` (stdout in $tmp/out, stderr in $tmp/err) and counts a failure unless it
# exits WANT_RC; has FILE TEXT WHAT and hasnt FILE TEXT WHAT count one unless FILE holds TEXT
# (has) or does not (hasnt).
. tests/cli/lib/common.sh
gate() {
    local want=$1 what=$2; shift 2
    "$ns" gate "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc -ne "$want" ]; then
        fail "$what: exit $rc, want $want"; sed 's/^/  | /' "$tmp/out" "$tmp/err" | head -20; return 1
    fi
    echo "ok: $what"
}
has() { grep -qF -- "$2" "$1" || { fail "$3: no '$2' in $(basename "$1")"; sed 's/^/  | /' "$1" | head -20; }; }
hasnt() { ! grep -qF -- "$2" "$1" || fail "$3: unexpected '$2' in $(basename "$1")"; }

# mk OUT [key=value...]: a results file, one result per id (ids='a;b'), 9 samples around 1 ms
# times scale with relative spread cv; ctx.X=JSON sets context field X (dots for nesting);
# top.X=JSON sets a top-level field; n=N keeps the first N samples; status=S sets each result's
# status.
mk() {
    python3 - "$@" <<'PY'
import json, sys
out, args = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
ids = args.pop("ids", "k1/avx2/dp/t1/n=4096").split(";")
scale, cv = float(args.pop("scale", "1")), float(args.pop("cv", "0.01"))
n, status = int(args.pop("n", "9")), args.pop("status", "ok")
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
    s = s[:n]
    doc["results"].append({"id": i, "threads": 1, "samples_s": s, "status": status,
                           "time_s": {"median": sorted(s)[len(s) // 2], "cv": sd / m}})
json.dump(doc, open(out, "w"))
PY
}
