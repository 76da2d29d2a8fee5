#!/usr/bin/env bash
# Installs the Debian packages nodescale needs to build, run and test, when any is
# missing. As root it runs apt-get; otherwise it prints the exact apt-get line and
# exits 1 so `make` stops with a reason instead of a compiler error.
set -euo pipefail

# dpkg package : what needs it
pkgs=(
  build-essential pkg-config       # compiler, make, pkg-config
  libjansson-dev                   # results.json reader/writer
  libcmark-gfm-dev libcmark-gfm-extensions-dev  # report.html: report.md rendered (GFM tables)
  libcsv-dev                       # results.csv, sweep.csv: RFC 4180 quoting
  libhwloc-dev hwloc               # topology: caches, cores, NUMA
  libblis-dev libblis4-openmp      # BLIS peer (OpenMP build)
  libopenblas-dev libopenblas0-openmp  # OpenBLAS peer (OpenMP build: no pthread pool fighting ours)
  libpapi-dev papi-tools           # PAPI counters
  likwid                           # likwid marker API and likwid-bench (reference ceilings)
  gnuplot-nox                      # roofline and sweep plots
  libcmocka-dev                    # unit tests
  libopenmpi-dev openmpi-bin       # fleet: many nodes over MPI
  jq python3                       # strict JSON checks in end-to-end tests
)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "nodescale: missing Debian packages; as root run: apt-get update && $line" >&2
  exit 1
fi
echo "nodescale: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends ${missing[*]} >&2
