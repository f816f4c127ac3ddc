set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
C=$(dirname "$(find /opt /usr -name 'libcudnn.so.9' 2>/dev/null | head -1)")
N=$(dirname "$(find /opt /usr -name 'libnvrtc.so.13*' 2>/dev/null | head -1)")
export ROOFTOP_HOME=/tmp/home5 LD_LIBRARY_PATH=$B/lib:$C:$N ROOFTOP_CUDNN=$C/libcudnn.so.9
R=$B/bin/rooftop
SECTIONS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats"
prof() {  # shape kernel-name out
  timeout 100 ncu --clock-control none --kernel-name-base function --kernel-name "$2" --launch-count 1 $SECTIONS $R run --backend cuda --suite attention --shape $1 --dtype bf16 --repetitions 1 --min-time 0.01 > $OUT/$3 2>&1
  echo "== $1 $2"; grep -E "^    (Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued|Block Size|Grid Size|Dynamic Shared|No Eligible|Active Warps Per)" $OUT/$3 | head -16
}
top_kernel() {
  timeout 60 ncu --clock-control none --csv --kernel-name-base function --metrics gpu__time_duration.sum --launch-count 40 $R run --backend cuda --suite attention --shape $1 --dtype bf16 --repetitions 1 --min-time 0.01 2>/dev/null | python3 -c "
import csv,sys
rows=[r for r in csv.reader(sys.stdin) if len(r)>10]
h=rows[0]; i=h.index('Kernel Name'); v=h.index('Metric Value')
print(max(rows[1:], key=lambda r: float(r[v].replace(',','')))[i])"
}
prof prefill:2x16x16x8192x128 prefill_wgmma ncu-prefill-ours.txt
prof decode:1x32x8x32768x128:s32 regex:decode_split ncu-decode-b1-ours.txt
K=$(top_kernel decode:1x32x8x32768x128:cudnn); prof decode:1x32x8x32768x128:cudnn "$K" ncu-decode-b1-cudnn.txt
timeout 330 $R run --backend cuda --suite attention --tier quick --benchmark_enable_random_interleaving=true --out $OUT/h100-quick-attention-1.json > $OUT/quick-1.log 2>&1; echo "quick run rc $?"; tail -4 $OUT/quick-1.log
