set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
export ROOFTOP_HOME=/tmp/home11 LD_LIBRARY_PATH=$B/lib
R=$B/bin/rooftop
timeout 100 $B/bin/rooftop_gpu_tests "split-KV decode*" 2>&1 | tail -2 | tee $OUT/gpu-tests-decode.txt
# Each point at the new default split count and at the one the previous rule chose.
S="1x32x8x32768x128:s33 8x32x8x5000x128:s8 32x32x8x4096x128:s2 4x32x8x32768x128:s16 8x32x8x1024x128:s8 1x32x8x4096x128:s33"
ARGS=""; for s in $S; do ARGS="$ARGS --shape decode:$s --shape decode:${s%:*}"; done
for round in 1 2; do
  timeout 100 $R run --backend cuda --suite attention $ARGS --dtype bf16 --benchmark_enable_random_interleaving=true --out $OUT/splits-$round.json > $OUT/splits-$round.log 2>&1
  echo "== round $round rc $?"; grep -E '^decode' $OUT/splits-$round.log | cut -c1-100
done
cp build/dev11.sh $OUT/dev11.sh.txt
