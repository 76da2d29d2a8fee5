#!/usr/bin/env bash
# The formulas tests/unit/test_cluster.c checks against published numbers are the
# ones the product computes with. Each function below is called from product code (roofline,
# cluster model and CLI), not only defined in cluster/equations.c and called from tests; and
# the dead helpers removed with them (no caller anywhere) stay gone.
set -u
cd "$(dirname "$0")/../.."
fails=0
for f in ns_ridge_point ns_gemm_ai ns_realized_flops ns_speedup ns_job_mtbf_s ns_daly_interval_s \
         ns_goodput_fraction ns_goodput_no_checkpoint ns_korthikanti_act_bytes ns_mfu \
         ns_roofline_time_s; do
  grep -lw "$f" roofline/*.c cluster/*.c | grep -qv '^cluster/equations\.c$' ||
    { echo "FAIL: $f is defined in cluster/equations.c but no product code calls it"; fails=$((fails + 1)); }
done
for f in ns_chip_hours_per_failure ns_red_parts_len ns_gemm_blocks_override \
         ns_hardware_flops_per_token; do
  if grep -rlw "$f" kernels harness roofline cluster reports fleet include bench tests/unit >/dev/null; then
    echo "FAIL: $f is back, and nothing calls it"; fails=$((fails + 1))
  fi
done
[ $fails -eq 0 ] && echo "equations_used: ok"
[ $fails -eq 0 ]
