#!/bin/bash
# Two bundles (an older build and this one), the same smoke points with the same seed:
# the same names and fields? For a refactoring (issue 16). Run on the GPU machine from the
# repository root with both tarballs carried:
#   bash ci/compare-bundles.sh OLD.tar.gz NEW.tar.gz   (results under $OUT, or /tmp/compare)
export NCCL_NVLS_ENABLE=0
mkdir -p /tmp/old /tmp/new
OUT=${OUT:-/tmp/compare}; mkdir -p "$OUT"
tar xzf "$1" -C /tmp/old && tar xzf "$2" -C /tmp/new
O=$(echo /tmp/old/rooftop-*/bin); N=$(echo /tmp/new/rooftop-*/bin)
nvidia-smi -L
for s in gemm attention collectives; do
  for v in old new; do
    b=$O; [ $v = new ] && b=$N
    "$b/rooftop" run --suite $s --backend cuda --tier smoke --seed 7 --repetitions 3 --out $OUT/$v-$s.json > $OUT/$v-$s.txt 2>&1
    echo "$v $s: exit $?"
  done
  python3 tests/same_results_layout.py $OUT/old-$s.json $OUT/new-$s.json | tail -4
done
"$N/rooftop" run --suite collectives --backend cuda --tier smoke --ranks 2 --seed 7 --repetitions 3 --out $OUT/new-coll-ranks.json > $OUT/new-coll-ranks.txt 2>&1
echo "ranks 2: exit $?"; tail -3 $OUT/new-coll-ranks.txt
python3 tests/same_results_layout.py $OUT/new-collectives.json $OUT/new-coll-ranks.json | tail -2
"$N/rooftop" list --suite collectives --backend cuda --tier quick --ranks 2 | wc -l
"$N/rooftop_gpu_tests" "[collectives]" 2>&1 | tail -4
