#!/usr/bin/env bash
# Issue 44 on a machine of 2 (or more) GPUs: tensor-parallel decode over NCCL, tp1 beside tp2
# in one call (the same cards, the same clocks): the GPU test of tokens and stages, then the
# 1B and 8B decode step (B=1, 512 positions, graph, fused) at tp1 and tp2 with --stages.
# usage: OUT=dir docs/results/issue44/call-tp-gpu.sh bundle.tar.xz
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out"
rm -rf /tmp/b && mkdir -p /tmp/b && tar -C /tmp/b -xf "$1"
bin=$(echo /tmp/b/rooftop-*/bin); R=$bin/rooftop
export ROOFTOP_HOME=/tmp/rooftop-home NCCL_NVLS_ENABLE=0
nvidia-smi topo -m > "$out/topology.txt" 2>&1
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$out/gpu.txt" 2>&1
python3 tests/gpu_inference_tp.py "$R" "$out/test" > "$out/gpu-test-tp.txt" 2>&1
echo "tp test exit $?"; tail -5 "$out/gpu-test-tp.txt"
[ -n "$(ls $ROOFTOP_HOME/profiles/*.json 2>/dev/null)" ] || "$R" characterize --backend cuda > "$out/characterize.txt" 2>&1
for model in ${MODELS:-llama-3.1-8b llama-3.2-1b}; do
  shape="$model:decode:1x512:graph:fused"
  timeout 200 "$R" run --backend cuda --suite inference --dtype bf16 --repetitions 10 --shape "$shape" \
    --out "$out/$model-tp1.json" > "$out/$model-tp1.log" 2>&1; echo "$model tp1 exit $?"
  timeout 300 "$R" run --ranks 2 --comm-timeout 60 --backend cuda --suite inference --dtype bf16 --repetitions 10 --stages \
    --shape "$shape:tp2" --out "$out/$model-tp2.json" > "$out/$model-tp2.log" 2>&1; echo "$model tp2 exit $?"
  grep -hE "_c512_" "$out/$model-tp1.log" "$out/$model-tp2.log" | grep -v stage | cut -c1-150 | head -4
done
tail -30 "$out/llama-3.2-1b-tp2.log" | cut -c1-160
