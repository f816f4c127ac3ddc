set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
C=$(dirname "$(find /opt /usr -name 'libcudnn.so.9' 2>/dev/null | head -1)")
N=$(dirname "$(find /opt /usr -name 'libnvrtc.so.13*' 2>/dev/null | head -1)")
export ROOFTOP_HOME=/tmp/home15-$(nvidia-smi --query-gpu=name --format=csv,noheader | tr -dc 'A-Za-z0-9') LD_LIBRARY_PATH=$B/lib:$C:$N ROOFTOP_CUDNN=$C/libcudnn.so.9
R=$B/bin/rooftop; G=${GPU:-h100}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv | tee $OUT/$G-gpu.txt
# The shapes and two more at head dim 64, each at its default tile (untuned) beside cuDNN.
S="2x16x16x8192x128 2x16x16x8192x128:causal 4x32x8x4096x128:causal 8x16x16x2048x64 1x16x16x3000x128:causal 1x16x16x16384x128 4x32x8x4096x64:causal 2x16x16x8192x64"
ARGS=""; for s in $S; do ARGS="$ARGS --shape prefill:$s --shape prefill:$s:cudnn"; done
timeout 200 $R run --backend cuda --suite attention $ARGS --dtype bf16 --benchmark_enable_random_interleaving=true --out $OUT/$G-default-vs-cudnn.json > $OUT/$G-default-vs-cudnn.log 2>&1
echo "== default vs cudnn rc $?"; grep -E '^prefill' $OUT/$G-default-vs-cudnn.log | cut -c1-110
# Tune the odd-length and head-dim-64 shapes (every compiled tile a candidate), then run them tuned.
T="prefill:1x16x16x3000x128:causal prefill:8x16x16x2048x64 prefill:4x32x8x4096x64:causal prefill:2x16x16x8192x64"
timeout 240 $R tune --backend cuda --suite attention --shape $T --dtype bf16 > $OUT/$G-tune.log 2>&1; echo "== tune rc $?"; tail -6 $OUT/$G-tune.log | cut -c1-160
cp $ROOFTOP_HOME/tuning/*.json $OUT/$G-tuning.json
timeout 100 $R run --backend cuda --suite attention --shape $T --dtype bf16 --out $OUT/$G-tuned.json > $OUT/$G-tuned.log 2>&1
echo "== tuned rc $?"; grep -E '^prefill' $OUT/$G-tuned.log | cut -c1-110
cp build/dev15.sh $OUT/dev15.sh.txt
