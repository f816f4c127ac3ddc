#!/usr/bin/env bash
# Installs what rooftop needs to build and test on Debian 12, from Debian's packages only.
set -euo pipefail
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends \
  build-essential cmake ninja-build git ca-certificates \
  libbenchmark-dev libdnnl-dev libfmt-dev catch2 nlohmann-json3-dev libcli11-dev libkainjow-mustache-dev \
  python3 python3-jsonschema >/dev/null
echo "ci/install-deps.sh: dependencies installed"
