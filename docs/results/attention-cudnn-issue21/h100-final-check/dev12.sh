set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
C=$(dirname "$(find /opt /usr -name 'libcudnn.so.9' 2>/dev/null | head -1)")
N=$(dirname "$(find /opt /usr -name 'libnvrtc.so.13*' 2>/dev/null | head -1)")
export ROOFTOP_HOME=/tmp/home12 LD_LIBRARY_PATH=$B/lib:$C:$N ROOFTOP_CUDNN=$C/libcudnn.so.9
R=$B/bin/rooftop
timeout 120 $B/bin/rooftop_gpu_tests "split-KV decode*,the inference decoder*" 2>&1 | tail -2 | tee $OUT/gpu-tests.txt
timeout 60 $R run --backend cuda --suite attention --tier smoke --out $OUT/smoke-attention.json > $OUT/smoke-attention.log 2>&1; echo "smoke attention rc $?"; grep -cE " ok$" $OUT/smoke-attention.log
timeout 40 $R run --backend cuda --suite attention --shape decode:1x64x8x4000x128 decode:2x64x8x3000x64 --dtype fp32 bf16 --out $OUT/decode-g8.json 2>&1 | grep -E '^\['
cp build/dev12.sh $OUT/dev12.sh.txt
