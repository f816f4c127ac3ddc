#!/usr/bin/env bash
# Issue 35: why `rooftop_gpu_tests "cuDNN*"` hangs with the machine's own cuDNN on the loader's
# path while `rooftop run ...:cudnn` finishes. One device call: the bundle unpacked, the test
# under its new time bound with stacks sampled by cuda-gdb, the libraries each process maps,
# the same shapes through `rooftop run`.
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out" /tmp/b
tar -C /tmp/b -xzf "$1"; bin=$(echo /tmp/b/rooftop-*/bin)
export ROOFTOP_HOME=/tmp/rooftop-home NCCL_NVLS_ENABLE=0
nvidia-smi -L
echo "--- cuDNN on the loader's path:"; ldconfig -p | grep -i "libcudnn.so\|libnvrtc\|libcublasLt" | head
echo "--- the bundle's lib/:"; ls "$bin/../lib"
echo "--- rooftop_gpu_tests dynamic section:"; readelf -d "$bin/rooftop_gpu_tests" | grep -i "path"
sample() {  # sample PID TAG
  grep -E "cudnn|cublas|nvrtc|libcuda" /proc/$1/maps | awk '{print $6}' | sort -u > "$out/maps-$2.txt"
  timeout 60 cuda-gdb -p "$1" -batch -ex "info threads" -ex "thread apply all bt 25" > "$out/stacks-$2.txt" 2>&1
  grep -E "^#|Thread" "$out/stacks-$2.txt" | head -60
}
echo "=== the test as the issue ran it (bound 150 s)"
ROOFTOP_GPU_TEST_SECONDS=150 "$bin/rooftop_gpu_tests" "cuDNN*" --durations yes > "$out/test-cudnn.txt" 2>&1 & pid=$!
sleep 40; kill -0 $pid 2>/dev/null && sample $pid test-40s
sleep 40; kill -0 $pid 2>/dev/null && sample $pid test-80s
wait $pid; echo "test exit $?"; tail -15 "$out/test-cudnn.txt"
echo "=== the same shapes through rooftop run"
( time "$bin/rooftop" run --suite attention --backend cuda --repetitions 2 --dtype bf16 \
  --shape prefill:2x8x2x300x128:causal:cudnn,prefill:1x4x4x129x64:cudnn,prefill:1x8x1x1000x128:cudnn,decode:3x32x8x1000x128:cudnn,decode:1x8x8x4096x64:cudnn ) \
  > "$out/run-cudnn.txt" 2>&1 & rpid=$!
sleep 3; kill -0 $rpid 2>/dev/null && grep -E "cudnn|cublas|nvrtc" /proc/$(pgrep -f "bin/rooftop run" | head -1)/maps | awk '{print $6}' | sort -u > "$out/maps-run.txt"
wait $rpid; tail -12 "$out/run-cudnn.txt"
diff "$out/maps-test-40s.txt" "$out/maps-run.txt" && echo "same libraries mapped"
