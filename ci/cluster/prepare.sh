#!/usr/bin/env bash
# prepare.sh BUILD_DIR OUT: what every cluster check shares, made once: the relocatable bundle
# (ci/make-bundle.sh) unpacked in OUT/bundle, and a rooftop home with this machine's CPU
# profile (a quick characterize) in OUT/home. The checks add the network's roof to a copy.
set -euo pipefail
build=${1:?usage: ci/cluster/prepare.sh BUILD_DIR OUT}
out=${2:?usage: ci/cluster/prepare.sh BUILD_DIR OUT}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out" && mkdir -p "$out/bundle"
bash "$here/../make-bundle.sh" "$build" "$out/bundle.tar.gz"
tar -C "$out/bundle" -xzf "$out/bundle.tar.gz" && rm "$out/bundle.tar.gz"
bundle=$(echo "$out"/bundle/rooftop-*)
ROOFTOP_HOME=$out/home "$bundle/bin/rooftop" characterize --backend cpu --quick > "$out/characterize.log" 2>&1 ||
  { tail -n 20 "$out/characterize.log" >&2; echo "prepare.sh: characterize failed (log: $out/characterize.log)" >&2; exit 1; }
echo "prepare.sh: $bundle and a CPU profile in $out/home"
