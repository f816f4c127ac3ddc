#!/usr/bin/env bash
# Issue 44, item 3, on a machine of 2 GPUs: the tensor-parallel GPU test (the one-shot peer
# all-reduce and NCCL's, each against tp1's tokens), then the 8B decode step (B=1, 512
# positions, graph, fused) at tp1 and at tp2 with each all-reduce and L2 prefetch setting,
# then the 70B at tp2. Everything in one call: the same cards, the same clocks.
# usage: OUT=dir docs/results/issue44/call-tp-overlap.sh bundle-run.tar.xz
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out"
rm -rf /tmp/b && mkdir -p /tmp/b && tar -C /tmp/b -xf "$1"
bin=$(echo /tmp/b/rooftop-*/bin); R=$bin/rooftop
export ROOFTOP_HOME=/tmp/rooftop-home NCCL_NVLS_ENABLE=0
t0=$SECONDS
stamp() { echo "[$((SECONDS - t0)) s] $*"; }
nvidia-smi topo -m > "$out/topology.txt" 2>&1
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$out/gpu.txt" 2>&1
python3 tests/gpu_inference_tp.py "$R" "$out/test" > "$out/gpu-test-tp.txt" 2>&1
stamp "tp test exit $?"; tail -6 "$out/gpu-test-tp.txt" | cut -c1-400
"$R" characterize --backend cuda > "$out/characterize.txt" 2>&1; stamp "characterize exit $?"
shape="llama-3.1-8b:decode:1x512:graph:fused"
common=(--backend cuda --suite inference --dtype bf16 --repetitions 10)
timeout 200 "$R" run "${common[@]}" --shape "$shape" --out "$out/8b-tp1.json" > "$out/8b-tp1.log" 2>&1
stamp "8b tp1 exit $?"; grep -h "_c512_" "$out/8b-tp1.log" | head -1 | cut -c1-150
# ALGORITHM:PREFETCH_MIB; the first also with --stages (its all-reduces as stage points).
settings=${SETTINGS:-peer:0 peer:4 peer:8 peer:0 peer:4 peer:16 nccl:0}
run_no=0
for setting in $settings; do
  run_no=$((run_no + 1)); algo=${setting%:*} mib=${setting#*:}; name="8b-tp2-$run_no-$algo-$mib"
  extra=(); [ "$setting" = "${settings%% *}" ] && extra=(--stages)
  ROOFTOP_TP_ALL_REDUCE=$algo ROOFTOP_TP_PREFETCH_MB=$mib timeout 200 "$R" run --ranks 2 --comm-timeout 60 "${common[@]}" \
    "${extra[@]}" --shape "$shape:tp2" --out "$out/$name.json" > "$out/$name.log" 2>&1
  stamp "$name exit $?"; grep -h "_c512_" "$out/$name.log" | grep -v "\." | head -1 | cut -c1-150
done
for model in llama-3.2-1b; do
  timeout 100 "$R" run "${common[@]}" --shape "$model:decode:1x512:graph:fused" --out "$out/1b-tp1.json" > "$out/1b-tp1.log" 2>&1
  stamp "1b tp1 exit $?"
  ROOFTOP_TP_ALL_REDUCE=auto timeout 100 "$R" run --ranks 2 --comm-timeout 60 "${common[@]}" \
    --shape "$model:decode:1x512:graph:fused:tp2" --out "$out/1b-tp2.json" > "$out/1b-tp2.log" 2>&1
  stamp "1b tp2 exit $?"; grep -h "_c512_" "$out"/1b-tp*.log | grep -v "\." | cut -c1-150
done
for setting in ${SETTINGS_70B:-peer:0 peer:4}; do
  algo=${setting%:*} mib=${setting#*:}; name="70b-tp2-$algo-$mib"
  ROOFTOP_TP_ALL_REDUCE=$algo ROOFTOP_TP_PREFETCH_MB=$mib timeout 200 "$R" run --ranks 2 --comm-timeout 120 "${common[@]}" \
    --shape "llama-3.1-70b:decode:1x512:graph:fused:tp2" --out "$out/$name.json" > "$out/$name.log" 2>&1
  stamp "$name exit $?"; grep -h "_c512_\|rror\|refus" "$out/$name.log" | head -2 | cut -c1-200
done
cd "$out" && tar czf results.tar.gz *.json *.log *.txt test && rm -rf test *.log *.json *.txt
ls "$out"
