set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
xz -dc build/old-rooftop.xz > $B/bin/rooftop-old && chmod +x $B/bin/rooftop-old
C=$(dirname "$(find /opt /usr -name 'libcudnn.so.9' 2>/dev/null | head -1)")
N=$(dirname "$(find /opt /usr -name 'libnvrtc.so.13*' 2>/dev/null | head -1)")
export ROOFTOP_HOME=/tmp/home8 LD_LIBRARY_PATH=$B/lib:$C:$N ROOFTOP_CUDNN=$C/libcudnn.so.9
R=$B/bin/rooftop
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
true
S="decode:1x32x8x32768x128 decode:1x32x8x32768x128:s32 decode:8x32x8x5000x128 decode:8x32x8x5000x128:s4 decode:32x32x8x4096x128 decode:1x32x8x32768x128:paged16 decode:8x32x8x4096x128:paged16 decode:8x32x8x4096x128 decode:1x32x8x32768x128:cudnn decode:8x32x8x5000x128:cudnn"
ARGS=""; for s in $S; do ARGS="$ARGS --shape $s"; done
for round in 1 2; do for bin in old new; do
  X=$R; [ $bin = old ] && X=$B/bin/rooftop-old
  timeout 100 $X run --backend cuda --suite attention $ARGS --dtype bf16 --out $OUT/decode-$bin-$round.json > $OUT/decode-$bin-$round.log 2>&1
  echo "== $bin round $round rc $?"; grep -E '^\[' $OUT/decode-$bin-$round.log | sed 's/attention.cuda.bf16.//'
done; done
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats"
true
grep -E "^    (Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|No Eligible|Grid Size)" $OUT/ncu-decode-b1-new.txt
cp build/dev8.sh $OUT/
