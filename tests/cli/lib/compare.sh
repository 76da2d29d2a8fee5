# Sourced by tests/cli/compare_*.sh and fleet_compare.sh: common.sh with jq required (skip,
# exit 77, otherwise), then bin (= ns) and fx (the synthetic provider fixtures, not
# measurements).
need_jq=1
. tests/cli/lib/common.sh
bin=$ns
fx=tests/fixtures/fleet
