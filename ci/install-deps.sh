#!/usr/bin/env bash
# Installs what rooftop needs on Debian 12, from Debian's packages (and, for the browser
# test, playwright-core from npm at the version in tests/browser/package-lock.json).
#   ci/install-deps.sh          build and run rooftop
#   ci/install-deps.sh --tests  also what the tests need: python3-jsonschema, chromium, node
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
if [ "${1:-}" = "--tests" ]; then
  packages+=(python3-jsonschema chromium file)  # file: CPack's .deb reads the binaries' dependencies with it
  command -v npm >/dev/null || packages+=(nodejs npm)
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
if [ "${1:-}" = "--tests" ]; then
  root=$(cd "$(dirname "$0")/.." && pwd)
  (cd "$root/tests/browser" && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "ci/install-deps.sh: dependencies installed"
