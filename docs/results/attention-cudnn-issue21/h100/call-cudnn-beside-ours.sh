set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
C=$(dirname "$(find /opt /usr -name 'libcudnn.so.9' 2>/dev/null | head -1)")
N=$(dirname "$(find /opt /usr -name 'libnvrtc.so.13*' 2>/dev/null | head -1)")
export ROOFTOP_HOME=/tmp/home LD_LIBRARY_PATH=$B/lib:$C:$N ROOFTOP_CUDNN=$C/libcudnn.so.9
$B/bin/rooftop_gpu_tests "cuDNN*" -s 2>&1 | grep -v "^$" | tail -8 | tee $OUT/gpu-tests-cudnn.txt
S="prefill:2x16x16x8192x128 prefill:2x16x16x8192x128:causal prefill:4x32x8x4096x128:causal prefill:8x16x16x2048x64 prefill:1x16x16x3000x128:causal prefill:1x16x16x16384x128 decode:1x32x8x32768x128 decode:8x32x8x5000x128 decode:32x32x8x4096x128"
ARGS=""; for s in $S; do ARGS="$ARGS --shape $s --shape $s:cudnn"; done
timeout 200 $B/bin/rooftop run --backend cuda --suite attention $ARGS --dtype bf16 --out $OUT/cudnn-beside-ours.json 2>&1 | tail -24
timeout 120 python3 ci/torch-sdpa-anchor.py $OUT/torch-anchor.json $S > $OUT/torch-anchor.log 2>&1; python3 -c "
import json; d=json.load(open('$OUT/torch-anchor.json'))
for r in d['rows']: print(r['shape'], r['backend'], round(r.get('tflops',0)), round(r.get('kv_tbps',0),2), r.get('refused',''))"
