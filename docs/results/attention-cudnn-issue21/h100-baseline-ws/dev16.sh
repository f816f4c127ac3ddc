set -uo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/* && tar xzf build/slim-bundle.tar.gz -C /tmp/b; B=$(ls -d /tmp/b/rooftop-*)
C=$(dirname "$(find /opt /usr -name 'libcudnn.so.9' 2>/dev/null | head -1)")
N=$(dirname "$(find /opt /usr -name 'libnvrtc.so.13*' 2>/dev/null | head -1)")
export ROOFTOP_HOME=/tmp/home16 LD_LIBRARY_PATH=$B/lib:$C:$N ROOFTOP_CUDNN=$C/libcudnn.so.9
R=$B/bin/rooftop
I=${RUN_INDEX:-1}
# The H100 profile measured before (docs/results/cuda/h100-profile.json): the ceilings of the baseline.
mkdir -p $ROOFTOP_HOME/profiles && cp docs/results/cuda/h100-profile.json $ROOFTOP_HOME/profiles/cuda-nvidia-h100-80gb-hbm3-132sm-c895795c.json
date +%s > $OUT/start-$I
timeout 560 $R run --backend cuda --suite attention --tier quick --benchmark_enable_random_interleaving=true --out $OUT/h100-quick-attention-$I.json > $OUT/quick-$I.log 2>&1
echo "quick run $I rc $? in $(( $(date +%s) - $(cat $OUT/start-$I) )) s"; tail -3 $OUT/quick-$I.log
cp build/dev16.sh $OUT/dev16.sh.txt
