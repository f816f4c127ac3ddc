#!/usr/bin/env bash
# Installs what rooftop needs on Debian 12, from Debian's packages (and, for the browser
# test, playwright-core from npm at the version in tests/browser/package-lock.json).
#   ci/install-deps.sh          build and run rooftop
#   ci/install-deps.sh --tests  also what the tests need: python3-jsonschema, chromium, node
#   ci/install-deps.sh --hip    also Debian 12's ROCm 5.2 toolchain, for the HIP build (docs/build.md,
#                               "AMD GPUs")
#   ci/install-deps.sh --cluster  also a Slurm of its own for the cluster checks (ci/cluster/):
#                               slurmctld, slurmd, its client, munge, iproute2, iperf3 (the
#                               link's roof), python3-yaml (ci/run-workflow.py); flags combine
set -euo pipefail
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# Every package a find_package or a test needs is named, recommended or not: apt-get runs with
# --no-install-recommends, and Debian's oneDNN CMake config calls find_package(OpenCL), whose
# ocl-icd-opencl-dev is only a Recommends of libdnnl-dev (ci/fresh-debian.sh proves the list).
packages=(build-essential cmake ninja-build git ca-certificates
  libbenchmark-dev libdnnl-dev ocl-icd-opencl-dev libfmt-dev catch2 nlohmann-json3-dev libcli11-dev
  libkainjow-mustache-dev libre2-dev libsqlite3-dev pkgconf python3 libopenmpi-dev openmpi-bin)
tests=false hip=false cluster=false
for flag in "$@"; do
  case $flag in
    --tests) tests=true ;;
    --hip) hip=true ;;
    --cluster) cluster=true ;;
    *) echo "ci/install-deps.sh: unknown flag $flag (use --tests, --hip, --cluster)" >&2; exit 2 ;;
  esac
done
if $tests; then
  packages+=(python3-jsonschema chromium file)  # file: CPack's .deb reads the binaries' dependencies with it
  command -v npm >/dev/null || packages+=(nodejs npm)
fi
if $hip; then
  # hipcc (clang 15 with the HIP runtime's headers), the device libraries it links into GPU
  # code, ROCm SMI's header (the library is opened at run time), rocminfo to list GPUs.
  packages+=(hipcc libamdhip64-dev rocm-device-libs librocm-smi-dev rocminfo)
fi
if $cluster; then
  packages+=(slurmctld slurmd slurm-client munge iproute2 iperf3 python3-yaml)
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
if $tests; then
  root=$(cd "$(dirname "$0")/.." && pwd)
  (cd "$root/tests/browser" && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "ci/install-deps.sh: dependencies installed"
