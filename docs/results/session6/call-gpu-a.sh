#!/usr/bin/env bash
# The merged main on a GPU (one call), given its bundle: every GPU test, every suite's smoke
# tier on CUDA (the typed shapes' CUDA paths), and issue 39's GPU side (NVML identity and
# readings, CUDA characterize in rounds, a low ceiling re-measured and written back).
# usage: OUT=dir docs/results/session6/call-gpu-a.sh rooftop-*.tar.xz
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out"
rm -rf /tmp/b && mkdir -p /tmp/b && tar -C /tmp/b -xf "$1"
bin=$(echo /tmp/b/rooftop-*/bin); R=$bin/rooftop
export ROOFTOP_HOME=/tmp/rooftop-home
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.limit --format=csv,noheader | tee "$out/gpu.txt"
timeout 420 "$bin/rooftop_gpu_tests" --durations yes > "$out/gpu-tests.txt" 2>&1
echo "gpu tests exit $?"; grep -E "^test cases|^assertions|FAILED|All tests" "$out/gpu-tests.txt" | tail -6
"$R" info --backend cuda > "$out/info.txt" 2>&1; echo "info exit $?"; grep -iE "power|ECC|PCI|MIG" "$out/info.txt" | head -4
( time "$R" characterize --backend cuda --quick --out "$out/quick-profile.json" ) > "$out/characterize-quick.txt" 2>&1
echo "characterize exit $?"; grep -E "round|within|real" "$out/characterize-quick.txt" | tail -12
for s in gemm attention inference; do
  timeout 200 "$R" run --backend cuda --suite $s --tier smoke --profile "$out/quick-profile.json" --out "$out/smoke-$s.json" \
    > "$out/smoke-$s.log" 2>&1; echo "smoke $s exit $?"
done
head -12 "$out/smoke-gemm.log"
"$R" report "$out/smoke-gemm.json" -o "$out/smoke-gemm.html" > "$out/report.log" 2>&1; echo "report exit $?"
grep -o "evidence[^<]*" "$out/smoke-gemm.html" | head -2
python3 - "$out/quick-profile.json" "$out/low.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for c in p['measured']['compute']:
    if c['name'] == 'bf16_matrix': c['flops_per_s'] = 1e12
json.dump(p, open(sys.argv[2], 'w'))
PY
"$R" run --backend cuda --suite gemm --dtype bf16 --tier smoke --profile "$out/low.json" --update-profile \
  --out "$out/raised.json" > "$out/raised.log" 2>&1; echo "raised run exit $?"; grep -iE "raised|wrote .* back" "$out/raised.log" | head -4
