#!/usr/bin/env bash
# Issue 44: the defaults' figures on 2 GPUs in one call: the 8B decode step (B=1, 512
# positions, graph, fused) at tp1 and tp2, and the 70B at tp2 with --stages (where a
# token's time goes: each projection, attention, each all-reduce).
# usage: OUT=dir [TP2_RUNS=n] [RUN_70B=0] docs/results/issue44/call-tp-final.sh bundle-run.tar.xz
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out"
rm -rf /tmp/b && mkdir -p /tmp/b && tar -C /tmp/b -xf "$1"
bin=$(echo /tmp/b/rooftop-*/bin); R=$bin/rooftop
export ROOFTOP_HOME=/tmp/rooftop-home NCCL_NVLS_ENABLE=0
t0=$SECONDS
stamp() { echo "[$((SECONDS - t0)) s] $*"; }
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$out/gpu.txt" 2>&1
"$R" characterize --backend cuda > "$out/characterize.txt" 2>&1; stamp "characterize exit $?"
common=(--backend cuda --suite inference --dtype bf16 --repetitions 10)
timeout 100 "$R" run "${common[@]}" --shape llama-3.1-8b:decode:1x512:graph:fused --out "$out/8b-tp1.json" > "$out/8b-tp1.log" 2>&1
stamp "8b tp1 exit $?"
for n in $(seq ${TP2_RUNS:-1}); do  # TP2_RUNS=3: the run-to-run spread
  name=8b-tp2$([ "$n" = 1 ] || echo "-$n")
  timeout 100 "$R" run --ranks 2 --comm-timeout 60 "${common[@]}" --shape llama-3.1-8b:decode:1x512:graph:fused:tp2 \
    --out "$out/$name.json" > "$out/$name.log" 2>&1
  stamp "$name exit $?"
done
[ "${RUN_70B:-1}" = 1 ] && timeout 300 "$R" run --ranks 2 --comm-timeout 120 "${common[@]}" --stages \
  --shape llama-3.1-70b:decode:1x512:graph:fused:tp2 --out "$out/70b-tp2.json" > "$out/70b-tp2.log" 2>&1
stamp "70b tp2: $?"
grep -h "^\[1/1\]" "$out"/*.log | cut -c1-150
[ -f "$out/70b-tp2.log" ] && grep -h "_tp2\." "$out/70b-tp2.log" | cut -c1-150
cd "$out" && tar czf results.tar.gz *.json *.log *.txt && rm -f *.log *.json *.txt
