#!/usr/bin/env bash
# The decode targets of issue 42 on this GPU (the 1B and 8B, separate and ':fused', one run)
# and issue 43's serve scenario on CUDA (its GPU test and one serve point of the 1B).
# usage: OUT=dir docs/results/session6/call-gpu-b.sh rooftop-*.tar.xz   (after call-gpu-a.sh)
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out"
[ -x /tmp/b/rooftop-*/bin/rooftop ] 2>/dev/null || { rm -rf /tmp/b && mkdir -p /tmp/b && tar -C /tmp/b -xf "$1"; }
bin=$(echo /tmp/b/rooftop-*/bin); R=$bin/rooftop
export ROOFTOP_HOME=/tmp/rooftop-home
[ -n "$(ls $ROOFTOP_HOME/profiles/*.json 2>/dev/null)" ] || "$R" characterize --backend cuda > "$out/characterize.txt" 2>&1
shapes="llama-3.2-1b:decode:1x512,llama-3.2-1b:decode:1x512:fused,llama-3.1-8b:decode:1x512,llama-3.1-8b:decode:1x512:fused"
timeout 300 "$R" run --backend cuda --suite inference --dtype bf16 --repetitions 10 --shape "$shapes" \
  --out "$out/decode-bf16.json" > "$out/decode-bf16.log" 2>&1
echo "decode exit $?"; grep -E "_c512_graph" "$out/decode-bf16.log" | cut -c1-140 | tail -4
timeout 120 "$bin/rooftop_gpu_tests" "serve*" > "$out/gpu-tests-serve.txt" 2>&1; echo "serve tests exit $?"
grep -E "^test cases|^assertions|FAILED|All tests" "$out/gpu-tests-serve.txt" | tail -4
timeout 200 "$R" run --backend cuda --suite inference --dtype bf16 --repetitions 2 --shape "llama-3.2-1b:serve:4x48" \
  --out "$out/serve-1b.json" > "$out/serve-1b.log" 2>&1
echo "serve exit $?"; tail -12 "$out/serve-1b.log" | cut -c1-130
