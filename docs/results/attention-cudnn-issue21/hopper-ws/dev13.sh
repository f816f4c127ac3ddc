set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
C=$(dirname "$(find /opt /usr -name 'libcudnn.so.9' 2>/dev/null | head -1)")
N=$(dirname "$(find /opt /usr -name 'libnvrtc.so.13*' 2>/dev/null | head -1)")
export ROOFTOP_HOME=/tmp/home13 LD_LIBRARY_PATH=$B/lib:$C:$N ROOFTOP_CUDNN=$C/libcudnn.so.9
R=$B/bin/rooftop
timeout 150 $B/bin/rooftop_gpu_tests "fused prefill matches the reference in every compiled tile*" 2>&1 | tail -4 | tee $OUT/gpu-tests-prefill.txt
# Each shape: the current default (three warpgroups, cp.async), the TMA producer with and
# without ping-pong, and cuDNN, in one run.
S="2x16x16x8192x128 2x16x16x8192x128:causal 4x32x8x4096x128:causal 8x16x16x2048x64 1x16x16x3000x128:causal 1x16x16x16384x128"
ARGS=""; for s in $S; do ARGS="$ARGS --shape prefill:$s --shape prefill:$s:wgm128n128w12s2otp --shape prefill:$s:wgm128n128w12s2ot --shape prefill:$s:cudnn"; done
timeout 300 $R run --backend cuda --suite attention $ARGS --dtype bf16 --benchmark_enable_random_interleaving=true --out $OUT/ws-1.json > $OUT/ws-1.log 2>&1
echo "== rc $?"; grep -E '^prefill' $OUT/ws-1.log | cut -c1-110
cp build/dev13.sh $OUT/dev13.sh.txt
