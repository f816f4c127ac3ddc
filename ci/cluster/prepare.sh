#!/usr/bin/env bash
# prepare.sh BUILD_DIR OUT: what every cluster check shares, made once: the relocatable bundle
# (ci/make-bundle.sh) unpacked in OUT/bundle, and a rooftop home with this machine's CPU
# profile (a quick characterize) in OUT/home. The checks add the network's roof to a copy.
set -euo pipefail
build=${1:?usage: ci/cluster/prepare.sh BUILD_DIR OUT}
out=${2:?usage: ci/cluster/prepare.sh BUILD_DIR OUT}
here=$(cd "$(dirname "$0")" && pwd)
# Nothing to prepare for where neither the cluster nor the workflow runner can run (a machine
# without ci/install-deps.sh --cluster): their checks skip too.
if [ "${ROOFTOP_REQUIRE_CLUSTER:-0}" != 1 ] && ! command -v slurmctld >/dev/null && ! python3 -c 'import yaml' 2>/dev/null; then
  echo "SKIP: neither Slurm nor python3-yaml is installed (bash ci/install-deps.sh --cluster)" >&2
  exit 77
fi
rm -rf "$out" && mkdir -p "$out/bundle"
bash "$here/../make-bundle.sh" "$build" "$out/bundle.tar.gz"
tar -C "$out/bundle" -xzf "$out/bundle.tar.gz" && rm "$out/bundle.tar.gz"
bundle=$(echo "$out"/bundle/rooftop-*)
ROOFTOP_HOME=$out/home "$bundle/bin/rooftop" characterize --backend cpu --quick > "$out/characterize.log" 2>&1 ||
  { tail -n 20 "$out/characterize.log" >&2; echo "prepare.sh: characterize failed (log: $out/characterize.log)" >&2; exit 1; }
echo "prepare.sh: $bundle and a CPU profile in $out/home"
