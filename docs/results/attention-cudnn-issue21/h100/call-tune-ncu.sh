set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
C=$(dirname "$(find /opt /usr -name 'libcudnn.so.9' 2>/dev/null | head -1)")
N=$(dirname "$(find /opt /usr -name 'libnvrtc.so.13*' 2>/dev/null | head -1)")
export ROOFTOP_HOME=/tmp/home LD_LIBRARY_PATH=$B/lib:$C:$N ROOFTOP_CUDNN=$C/libcudnn.so.9
R=$B/bin/rooftop
T="--shape prefill:8x16x16x2048x64 --shape prefill:1x16x16x3000x128:causal --shape prefill:2x16x16x8192x128 --shape prefill:4x32x8x4096x128:causal --shape decode:1x32x8x32768x128 --shape decode:8x32x8x5000x128"
timeout 300 $R tune --backend cuda --suite attention $T --dtype bf16 2>&1 | tail -12 | tee $OUT/tune.txt
cp /tmp/home/tuning/*.json $OUT/ 2>/dev/null
timeout 120 $R run --backend cuda --suite attention $T --dtype bf16 --out $OUT/tuned-run.json 2>&1 | tail -9
for s in prefill:2x16x16x8192x128 prefill:2x16x16x8192x128:cudnn; do
  n=$(echo $s | tr ':' '_')
  timeout 60 ncu --clock-control none --csv --metrics gpu__time_duration.sum --launch-count 40 $R run --backend cuda --suite attention --shape $s --dtype bf16 --repetitions 1 --min-time 0.01 > /tmp/list.csv 2>/dev/null
  K=$(python3 -c "
import csv,sys
rows=[r for r in csv.reader(open('/tmp/list.csv')) if len(r)>10]
h=rows[0]; i=h.index('Kernel Name'); v=h.index('Metric Value')
best=max(rows[1:], key=lambda r: float(r[v].replace(',','')))
print(best[i].split('(')[0].split('<')[0].strip())")
  echo "$s: $K"
  timeout 120 ncu --clock-control none --kernel-name-base function --kernel-name "regex:$K" --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis $R run --backend cuda --suite attention --shape $s --dtype bf16 --repetitions 1 --min-time 0.01 > $OUT/ncu-$n.txt 2>&1
  grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued|Block Size|Grid Size|Shared Memory Configuration Size|Dynamic Shared" $OUT/ncu-$n.txt | head -16
done
