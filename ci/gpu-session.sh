#!/usr/bin/env bash
# What one call to a lent GPU machine runs (the device tool; docs/PERFORMANCE.md says which
# call produced which figure): unpack the bundle built here, then check, characterize, run
# and compare. Everything worth keeping goes under $OUT.
#
# usage: ci/gpu-session.sh BUNDLE.tar.gz STEP...
#   steps: tests tests-attention tests-collectives collectives order ranks quick-collectives info characterize
#          smoke quick bare bare-paused baseline aa gate attention inference inference-fp8 inference-baseline
set -uo pipefail
bundle=${1:?usage: gpu-session.sh BUNDLE.tar.gz STEP...}
shift
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out" /tmp/rooftop-bundle
export NCCL_NVLS_ENABLE=0  # NVLink multicast stays off on shared machines (KINDS.md)
export ROOFTOP_HOME=/tmp/rooftop-home  # the profile is copied out; $OUT returns at most 8 files
tar -C /tmp/rooftop-bundle -xf "$bundle"  # gzip or xz
bin=$(echo /tmp/rooftop-bundle/rooftop-*/bin)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
for step in "$@"; do
  echo "=== $step ($(date -u +%H:%M:%S))"
  case $step in
    tests) "$bin/rooftop_gpu_tests" --durations yes 2>&1 | tee "$out/gpu-tests.txt" ;;
    tests-attention) "$bin/rooftop_gpu_tests" "[attention]" --durations yes 2>&1 | tail -40 | tee "$out/gpu-tests-attention.txt" ;;
    info) "$bin/rooftop" info --backend cuda 2>&1 | tee "$out/info.txt" ;;
    characterize) "$bin/rooftop" characterize --backend cuda 2>&1 | tee "$out/characterize.txt"
                  cp "$ROOFTOP_HOME"/profiles/cuda-*.json "$out/cuda-profile.json" ;;
    smoke) "$bin/rooftop" run --suite gemm --backend cuda --tier smoke --out "$out/cuda-smoke-gemm.json" 2>&1 | tail -30 ;;
    quick) "$bin/rooftop" run --suite gemm --backend cuda --tier quick --out "$out/cuda-quick-gemm.json" \
             > "$out/cuda-quick-gemm.log" 2>&1; echo "exit $?"; grep -E "failed|error|wrote" "$out/cuda-quick-gemm.log" | tail -8 ;;
    bare) "$bin/rooftop_bare_cublaslt_benchmark" 8192x8192x8192,1x14336x4096,16x14336x4096 bf16,fp8,tf32 3 \
            2>&1 | grep -v "^\[" | tee "$out/bare-cublaslt.txt" ;;
    bare-paused) "$bin/rooftop_bare_cublaslt_benchmark" 8192x8192x8192 bf16,fp8,tf32 5 2 \
            2>&1 | grep -v "^\[" | tee "$out/bare-cublaslt-paused.txt" ;;
    gate) python3 tests/gate_suite.py "$bin/rooftop" baselines gemm cuda /tmp/rooftop-gate 2>&1 | tail -4
          echo "gate exit ${PIPESTATUS[0]}"; cp /tmp/rooftop-gate/gate-gemm-cuda.md "$out/" 2>/dev/null
          python3 tests/gpu_presence.py "$bin/rooftop" cuda | tail -3 ;;
    attention) "$bin/rooftop" run --suite attention --backend cuda --tier quick --out "$out/cuda-quick-attention.json" \
                 > "$out/cuda-quick-attention.log" 2>&1; echo "exit $?"; grep -E "^attention" "$out/cuda-quick-attention.log" | cut -c1-60,150- ;;
    collectives)  # the 4 GiB headline twice, each beside a bare NCCL loop, then the quick tier in bf16
      for round in 1 2; do
        "$bin/rooftop_bare_nccl_benchmark" 4294967296 10 5 2>&1 | tee -a "$out/bare-nccl.txt"
        "$bin/rooftop" run --suite collectives --backend cuda --shape all_reduce:4G,all_gather:4G,reduce_scatter:4G \
          --dtype bf16 --min-time 0.1 --out "$out/cuda-collectives-4g-$round.json" 2>&1 | grep -E "^collectives|wrote|rooftop:" | cut -c1-60,120-
      done
      timeout 300 "$bin/rooftop" run --suite collectives --backend cuda --tier quick --dtype bf16 \
        --out "$out/cuda-quick-collectives.json" > "$out/cuda-quick-collectives.log" 2>&1; echo "exit $?" ;;
    aa) "$bin/rooftop" run --suite gemm --backend cuda --tier quick --repetitions 10 \
          --benchmark_enable_random_interleaving=true --out "$out/cuda-quick-gemm-aa.json" > /dev/null 2>&1
        echo "exit $?" ;;
    baseline) "$bin/rooftop" run --suite gemm --backend cuda --tier quick --repetitions 10 \
                --benchmark_enable_random_interleaving=true --out "$out/cuda-quick-gemm-baseline.json" > /dev/null 2>&1
              echo "exit $?" ;;
    tests-collectives) "$bin/rooftop_gpu_tests" "[collectives]" 2>&1 | tail -20 | tee "$out/gpu-tests-collectives.txt" ;;
    order)  # issue 15's sweep: every 1 MiB point follows a 4 GiB point of another collective
      # (ORDER_RANKS=N: one process a GPU)
      extra=(); [ -n "${ORDER_RANKS:-}" ] && extra=(--ranks "$ORDER_RANKS")
      "$bin/rooftop" run --suite collectives --backend cuda --dtype bf16 --repetitions 5 "${extra[@]}" \
        --shape all_reduce:1M-4G:f4,all_gather:1M-4G:f4,reduce_scatter:1M-4G:f4,alltoall:1M-4G:f4,sendrecv:1M-1G:f4 \
        --out "$out/cuda-collectives-order.json" > "$out/cuda-collectives-order.log" 2>&1
      echo "exit $?"; grep -E "failed|error|wrote" "$out/cuda-collectives-order.log" | cut -c1-160 | head -20 ;;
    ranks)  # the 4 GiB headline: bare NCCL loop, one process, one process a GPU (--ranks), twice over
      n=$(nvidia-smi -L | wc -l)
      for round in 1 2; do
        "$bin/rooftop_bare_nccl_benchmark" 4294967296 10 5 2>&1 | tee -a "$out/bare-nccl.txt"
        for how in single ranks; do
          extra=(); [ $how = ranks ] && extra=(--ranks "$n")
          "$bin/rooftop" run --suite collectives --backend cuda --shape all_reduce:4G,all_gather:4G,reduce_scatter:4G,sendrecv:4G \
            --dtype bf16 --min-time 0.1 "${extra[@]}" --out "$out/cuda-collectives-4g-$how-$round.json" 2>&1 | grep -E "_4G|exit|error"
        done
      done ;;
    quick-collectives)  # the quick tier, one process and one process a GPU (QUICK_HOW), each timed whole
      n=$(nvidia-smi -L | wc -l)
      for how in ${QUICK_HOW:-single ranks}; do
        extra=(); [ $how = ranks ] && extra=(--ranks "$n")
        start=$(date +%s)
        timeout 330 "$bin/rooftop" run --suite collectives --backend cuda --tier quick --dtype bf16 "${extra[@]}" \
          --out "$out/cuda-quick-collectives-$how.json" > "$out/cuda-quick-collectives-$how.log" 2>&1
        echo "quick tier, $how: exit $? in $(( $(date +%s) - start )) s"
      done ;;
    inference)  # issue 17: the decoder's GPU tests, the quick tier with its stages and trace, the full tier
      "$bin/rooftop_gpu_tests" "[inference]" --durations yes 2>&1 | tail -12 | tee "$out/gpu-tests-inference.txt"
      for tier in quick full; do
        extra=(); [ $tier = quick ] && extra=(--stages --trace "$out/cuda-quick-inference-trace.json")
        "$bin/rooftop" run --suite inference --backend cuda --tier $tier "${extra[@]}" \
          --out "$out/cuda-$tier-inference.json" > "$out/cuda-$tier-inference.log" 2>&1
        echo "$tier tier: exit $?"; grep -vE '^[^ ]+\.[a-z_]+ ' "$out/cuda-$tier-inference.log" | tail -25 | cut -c1-150
      done ;;
    inference-fp8)  # issue 17's fp8 weights: the decoder's GPU tests, then fp8 beside bf16 on the same points
      "$bin/rooftop_gpu_tests" "[inference]" --durations yes -s 2>&1 | grep -E "error .* x the bound|FAILED|passed|failed" \
        | cut -c1-200 | tee "$out/gpu-tests-inference-fp8.txt"
      for dtype in fp8 bf16; do
        shapes=llama-3.2-1b:prefill:1x512,llama-3.2-1b:decode:1x512:graph,llama-3.1-8b:decode:1x512:graph
        shapes+=,llama-3.1-8b:prefill:1x2048,llama-3.1-8b:decode:64x2048:graph
        "$bin/rooftop" run --suite inference --backend cuda --dtype $dtype --shape $shapes \
          --out "$out/cuda-inference-$dtype.json" > "$out/cuda-inference-$dtype.log" 2>&1
        echo "$dtype: exit $?"; grep -vE '^[^ ]+\.[a-z_]+ ' "$out/cuda-inference-$dtype.log" | tail -14 | cut -c1-150
      done ;;
    inference-baseline)  # the quick tier twice (no stages): the first promoted, the second gated
      for round in 1 2; do
        "$bin/rooftop" run --suite inference --backend cuda --tier quick \
          --out "$out/cuda-quick-inference-baseline-$round.json" > /dev/null 2>&1; echo "round $round: exit $?"
      done
      "$bin/rooftop" baseline update "$out/cuda-quick-inference-baseline-1.json" --baselines /tmp/rooftop-baselines
      "$bin/rooftop" gate --baseline /tmp/rooftop-baselines "$out/cuda-quick-inference-baseline-2.json" \
        --markdown "$out/gate-inference-cuda.md"; echo "gate exit $?" ;;
    *) echo "unknown step $step" ;;
  esac
done
echo "=== done ($(date -u +%H:%M:%S))"
