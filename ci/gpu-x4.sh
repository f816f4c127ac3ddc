#!/usr/bin/env bash
# Issue 58 on a lent 4-GPU (or 8) machine, in one call: the collectives' quick tier at N ranks
# (one process a GPU) beside torch.distributed's NCCL on the same sizes, then the 8B and 70B
# decode at tp1..tpN (the scaling table: `rooftop report tp*.json`). Steps start only while
# BUDGET seconds remain.
#
# usage: ci/gpu-x4.sh BUNDLE.tar.gz [BUDGET]
set -uo pipefail
bundle=${1:?usage: gpu-x4.sh BUNDLE.tar.gz [BUDGET]}
budget=${2:-520}
final=${OUT:-$PWD/gpu-out}
out=/tmp/gpu-x4-out  # $OUT returns at most 8 files: everything goes back as one tarball
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out" /tmp/rooftop-bundle
export NCCL_NVLS_ENABLE=0 ROOFTOP_HOME=/tmp/rooftop-home
tar -C /tmp/rooftop-bundle -xf "$bundle"  # gzip or xz
bin=$(echo /tmp/rooftop-bundle/rooftop-*/bin)
n=$(nvidia-smi -L | wc -l)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
nvidia-smi topo -m > "$out/topo.txt" 2>&1
start=$(date +%s)
left() { echo $(( budget - ($(date +%s) - start) )); }
step() { echo "=== $1 ($(date -u +%H:%M:%S), $(left) s left)"; }

step "torch.distributed NCCL, $n ranks"
timeout 150 python3 "$root/ci/torch-nccl-anchor.py" "$out/torch-nccl-r$n.json" --ranks "$n" 2>&1 | tail -40
step "rooftop collectives quick tier, $n ranks"
timeout 200 "$bin/rooftop" run --suite collectives --backend cuda --tier quick --dtype bf16 --ranks "$n" \
  --out "$out/cuda-quick-collectives-r$n.json" > "$out/cuda-quick-collectives-r$n.log" 2>&1
echo "exit $?"; grep -E "^collectives|_r$n " "$out/cuda-quick-collectives-r$n.log" | cut -c1-170 | tail -40
for model in llama-3.1-8b llama-3.1-70b; do
  for tp in 1 2 4 8; do
    [ "$tp" -le "$n" ] || continue
    [ "$model" = llama-3.1-70b ] && [ "$tp" -lt 2 ] && continue  # 131 GiB of weights: not on one H200
    [ "$(left)" -gt 60 ] || { echo "skip $model tp$tp: time"; continue; }
    step "$model decode tp$tp"
    suffix="" ranks=(); [ "$tp" -gt 1 ] && suffix=":tp$tp" ranks=(--ranks "$tp")
    timeout $(( $(left) - 10 )) "$bin/rooftop" run --suite inference --backend cuda --dtype bf16 "${ranks[@]}" \
      --shape "$model:decode:1x512:graph:fused$suffix" --out "$out/$model-decode-tp$tp.json" \
      > "$out/$model-decode-tp$tp.log" 2>&1
    echo "exit $?"; grep -E "decode_b1" "$out/$model-decode-tp$tp.log" | cut -c1-200 | tail -3
  done
done
for model in llama-3.1-8b llama-3.1-70b; do
  ls "$out"/$model-decode-tp*.json > /dev/null 2>&1 && "$bin/rooftop" report "$out"/$model-decode-tp*.json \
    --out "$out/$model-scaling.html" --markdown "$out/$model-scaling.md" > /dev/null 2>&1
  grep -iA8 "speed-up" "$out/$model-scaling.md" | head -14
done
mkdir -p "$final" && tar -C "$out" -czf "$final/gpu-x4.tar.gz" .
echo "=== done ($(date -u +%H:%M:%S))"
