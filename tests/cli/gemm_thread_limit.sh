#!/usr/bin/env bash
# The own GEMM when the OpenMP runtime grants fewer threads than it asks for (OMP_THREAD_LIMIT=1):
# every case of test_gemm, including the 2- and 4-thread ones, must pass through the fallback in
# which one thread does the whole product.
set -u
cd "$(dirname "$0")/../.."
if [ ! -x bin/tests/test_gemm ]; then
    echo "skip: bin/tests/test_gemm is not built"
    exit 77
fi
OMP_THREAD_LIMIT=1 bin/tests/test_gemm
