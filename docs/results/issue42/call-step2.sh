#!/usr/bin/env bash
# Issue 42, second step, on the GPU machine given a bundle (ci/make-bundle.sh) of main:
#   1. the inference GPU tests (the RoPE epilogue against the GEMV then the RoPE kernel,
#      the decoders against the double-precision reference);
#   2. every target point of the issue side by side in one run (repetitions 10): 1B and 8B
#      bf16 decode B = 1 at 512 with and without ':fused', fp8 1B and 8B, 1B at B = 16;
#   3. decode attention against cuDNN on the three shapes (attention suite);
#   4. ncu: one fused decode step of the 1B and one of the separate-kernel step, each kernel's
#      time and DRAM bytes (ROOFTOP_PROFILE_DECODE_STEP brackets one step).
# usage: OUT=/some/dir docs/results/issue42/call-step2.sh rooftop-*.tar.[gx]z [parts]
# parts: any of "tests points attention ncu" (default: all)
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out"
parts=${2:-"tests points attention ncu"}
rm -rf /tmp/b && mkdir -p /tmp/b && tar -C /tmp/b -xf "$1"  # this bundle alone: an earlier call's may be there
bin=$(echo /tmp/b/rooftop-*/bin)
export ROOFTOP_HOME=/tmp/rooftop-home
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.limit --format=csv,noheader | tee "$out/gpu.txt"
has() { case " $parts " in *" $1 "*) return 0;; esac; return 1; }
if has tests; then
  timeout 300 "$bin/rooftop_gpu_tests" "inference*" --durations yes > "$out/gpu-tests-inference.txt" 2>&1
  echo "inference tests exit $?"; grep -E "passed|failed|FAILED" "$out/gpu-tests-inference.txt" | tail -6
fi
[ -f "$ROOFTOP_HOME/profiles/"*.json ] 2>/dev/null || "$bin/rooftop" characterize --backend cuda > "$out/characterize.txt" 2>&1
if has points; then
  shapes="llama-3.2-1b:decode:1x512,llama-3.2-1b:decode:1x512:fused,llama-3.1-8b:decode:1x512,llama-3.1-8b:decode:1x512:fused"
  timeout 420 "$bin/rooftop" run --backend cuda --suite inference --dtype bf16 --repetitions 10 --shape "$shapes" \
    --out "$out/decode-bf16.json" > "$out/decode-bf16.log" 2>&1
  echo "bf16 decode exit $?"; grep -E "_c512|rooftop:" "$out/decode-bf16.log" | cut -c1-150 | tail -8
  timeout 300 "$bin/rooftop" run --backend cuda --suite inference --dtype fp8 --repetitions 10 \
    --shape "llama-3.2-1b:decode:1x512,llama-3.1-8b:decode:1x512" --out "$out/decode-fp8.json" > "$out/decode-fp8.log" 2>&1
  echo "fp8 decode exit $?"; grep -E "_c512|rooftop:" "$out/decode-fp8.log" | cut -c1-150 | tail -4
  timeout 200 "$bin/rooftop" run --backend cuda --suite inference --dtype bf16 --repetitions 10 \
    --stages --shape "llama-3.2-1b:decode:16x512,llama-3.2-1b:decode:16x512:fused" --out "$out/decode-b16.json" > "$out/decode-b16.log" 2>&1
  echo "B=16 decode exit $?"; grep -E "_c512|rooftop:" "$out/decode-b16.log" | cut -c1-150 | tail -4
fi
if has attention; then
  a=""
  for s in 1x32x8x32768x128 8x32x8x5000x128 4x64x8x20000x128; do a+="decode:$s,decode:$s:cudnn,"; done
  timeout 200 "$bin/rooftop" run --backend cuda --suite attention --dtype bf16 --repetitions 10 --shape "${a%,}" \
    --out "$out/attention-decode.json" > "$out/attention-decode.log" 2>&1
  echo "attention exit $?"; grep -E "decode|rooftop:" "$out/attention-decode.log" | cut -c1-150 | tail -8
fi
if has ncu; then
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  echo "ncu: ${ncu:-none found}"
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread
  for s in llama-3.2-1b:decode:1x512:fused llama-3.2-1b:decode:1x512; do
    tag=$(echo "$s" | tr ':' '_')
    ROOFTOP_PROFILE_DECODE_STEP=12 timeout 240 "$ncu" --profile-from-start off --clock-control none --metrics "$metrics" --csv \
      --log-file "$out/ncu-$tag.csv" "$bin/rooftop" run --backend cuda --suite inference --dtype bf16 --repetitions 1 \
      --shape "$s" --out "$out/ncu-$tag.json" > "$out/ncu-$tag.log" 2>&1
    echo "ncu $s exit $?"; grep -c '"gpu__time_duration.sum"' "$out/ncu-$tag.csv"
  done
fi
