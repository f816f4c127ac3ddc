set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
xz -dc build/old-rooftop.xz > $B/bin/rooftop-old && chmod +x $B/bin/rooftop-old
export ROOFTOP_HOME=/tmp/home10 LD_LIBRARY_PATH=$B/lib
S="--shape decode:1x32x8x1024x128 --shape decode:1x32x8x4096x128 --shape decode:1x32x8x1024x128:paged16 --shape decode:8x32x8x1024x128"
for round in 1 2; do for bin in old new; do
  X=$B/bin/rooftop; [ $bin = old ] && X=$B/bin/rooftop-old
  timeout 60 $X run --backend cuda --suite attention $S --dtype bf16 fp16 --repetitions 10 --out $OUT/ab-$bin-$round.json > $OUT/ab-$bin-$round.log 2>&1
  echo "== $bin round $round rc $?"; grep -E '^\[' $OUT/ab-$bin-$round.log | sed 's/attention.cuda.//'
done; done
cp build/dev10.sh $OUT/dev10.sh.txt
