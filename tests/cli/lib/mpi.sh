# Sourced by tests/cli/fleet*.sh: common.sh with jq required, then the mpirun command line for
# localhost tests, or exit 77 (skip) with the reason on the last line when mpirun cannot start a
# job here.
#   MPIRUN  mpirun --oversubscribe [--allow-run-as-root]: as many ranks as asked on this host
#   bin (= ns), host, fixtures
#   fleet4 NAME PATTERN [options]: a 4-rank `fleet --quick --no-collectives` over the node results
#     PATTERN names (--from-results), into $tmp/NAME (its output in $tmp/NAME.out, .err); returns
#     its exit status
# Open MPI needs --allow-run-as-root as root; vader's single-copy (CMA) mechanism needs ptrace
# rights containers often lack, so it is turned off; shared memory and loopback TCP only.
need_jq=1
. tests/cli/lib/common.sh
bin=$ns
command -v mpirun >/dev/null || { echo "skip: mpirun not installed (scripts/install-deps.sh)"; exit 77; }
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_btl=self,vader,tcp
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1
MPIRUN="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
if ! probe=$(timeout -k 2 30 $MPIRUN -np 2 true 2>&1); then
  echo "$probe" | tail -n 5
  echo "skip: mpirun cannot start a 2-rank job on this host (see above)"
  exit 77
fi
fixtures=tests/fixtures/fleet
host=$(hostname)
fleet4() {
  local name=$1 pat=$2
  shift 2
  timeout -k 2 60 $MPIRUN -np 4 $bin fleet --quick --ranks-per-node 4 --no-collectives \
    --from-results "$pat" --out "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
}
