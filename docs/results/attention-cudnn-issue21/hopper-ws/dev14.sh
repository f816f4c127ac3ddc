set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
C=$(dirname "$(find /opt /usr -name 'libcudnn.so.9' 2>/dev/null | head -1)")
N=$(dirname "$(find /opt /usr -name 'libnvrtc.so.13*' 2>/dev/null | head -1)")
export ROOFTOP_HOME=/tmp/home14 LD_LIBRARY_PATH=$B/lib:$C:$N ROOFTOP_CUDNN=$C/libcudnn.so.9
R=$B/bin/rooftop
# Correctness of the TMA tiles on the GPU test's shapes (odd lengths, GQA, MQA, causal), both dtypes.
T="wgm128n128w12s2otp wgm128n128w12s2ot wgm192n128w16s2otp"
ARGS=""; for s in 2x8x2x300x128:causal 1x4x4x129x64 1x8x1x1000x128 3x4x2x77x64:causal 1x2x2x1024x128:causal 2x4x4x200x64 1x1x1x1x64; do for t in $T; do ARGS="$ARGS --shape prefill:$s:$t"; done; done
timeout 120 $R run --backend cuda --suite attention $ARGS --dtype bf16 fp16 --min-time 0.001 --repetitions 1 --out $OUT/check.json > $OUT/check.log 2>&1
echo "== check rc $? ok $(grep -cE ' ok$' $OUT/check.log)"; grep -E '^prefill' $OUT/check.log | grep -vE ' ok$' | cut -c1-140
timeout 200 $B/bin/rooftop_gpu_tests "inference: the CUDA decoder*,inference: a graph*" 2>&1 | tail -2 | tee $OUT/gpu-tests-inference.txt
# Head dim 64: two and three consumers beside cuDNN.
S="8x16x16x2048x64 4x32x8x4096x64:causal 2x16x16x8192x64"
ARGS=""; for s in $S; do ARGS="$ARGS --shape prefill:$s:wgm128n128w12s2otp --shape prefill:$s:wgm128n128w12s2ot --shape prefill:$s:wgm192n128w16s2otp --shape prefill:$s:cudnn"; done
timeout 200 $R run --backend cuda --suite attention $ARGS --dtype bf16 --benchmark_enable_random_interleaving=true --out $OUT/d64.json > $OUT/d64.log 2>&1
echo "== d64 rc $?"; grep -E '^prefill' $OUT/d64.log | cut -c1-110
# ncu, one launch each: the cp.async kernel, the TMA producer, and ping-pong on 2x16x8192x128.
SECTIONS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section SchedulerStats"
for t in wgm192n128w12s2 wgm128n128w12s2ot wgm128n128w12s2otp; do
  timeout 100 ncu --clock-control none --kernel-name-base function --kernel-name regex:prefill --launch-count 1 $SECTIONS $R run --backend cuda --suite attention --shape prefill:2x16x16x8192x128:$t --dtype bf16 --repetitions 1 --min-time 0.01 > $OUT/ncu-$t.txt 2>&1
  echo "== ncu $t"; grep -E "^    (Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued|No Eligible|Executed Ipc Active)" $OUT/ncu-$t.txt | head -12
done
cp build/dev14.sh $OUT/dev14.sh.txt
