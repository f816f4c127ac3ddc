set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
C=$(dirname "$(find /opt /usr -name 'libcudnn.so.9' 2>/dev/null | head -1)")
N=$(dirname "$(find /opt /usr -name 'libnvrtc.so.13*' 2>/dev/null | head -1)")
export ROOFTOP_HOME=/tmp/home7 LD_LIBRARY_PATH=$B/lib:$C:$N ROOFTOP_CUDNN=$C/libcudnn.so.9
R=$B/bin/rooftop
timeout 300 $B/bin/rooftop_gpu_tests 2>&1 | tail -4 | tee $OUT/gpu-tests-all.txt
for s in gemm attention inference; do timeout 60 $R run --backend cuda --suite $s --tier smoke --out $OUT/smoke-$s.json > $OUT/smoke-$s.log 2>&1; echo "smoke $s rc=$?"; grep -cE " ok$" $OUT/smoke-$s.log; done
timeout 90 $R tune --backend cuda --suite attention --shape prefill:1x16x16x3000x128:causal --dtype bf16 2>&1 | tail -2
