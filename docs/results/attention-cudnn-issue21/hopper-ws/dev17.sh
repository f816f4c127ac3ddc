set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
C=$(dirname "$(find /opt /usr -name 'libcudnn.so.9' 2>/dev/null | head -1)")
N=$(dirname "$(find /opt /usr -name 'libnvrtc.so.13*' 2>/dev/null | head -1)")
export ROOFTOP_HOME=/tmp/home17 LD_LIBRARY_PATH=$B/lib:$C:$N ROOFTOP_CUDNN=$C/libcudnn.so.9
# The GPU test of every compiled prefill tile (the TMA ones included), bf16 and fp16.
timeout 570 $B/bin/rooftop_gpu_tests "fused prefill matches the reference in every compiled tile*" --durations yes 2>&1 | tail -6 | tee $OUT/gpu-tests-prefill-all-tiles.txt
cp build/dev17.sh $OUT/dev17.sh.txt
