#!/usr/bin/env bash
# Issue 44 on 4 GPUs: the 8B decode step (B=1, 512 positions, graph, fused) at tp1, tp2 and
# tp4 in one call, and tp4's greedy tokens against tp1's for two generations.
# usage: OUT=dir docs/results/issue44/call-tp4.sh bundle-run.tar.xz
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out"
rm -rf /tmp/b && mkdir -p /tmp/b && tar -C /tmp/b -xf "$1"
R=$(echo /tmp/b/rooftop-*/bin/rooftop)
export ROOFTOP_HOME=/tmp/rooftop-home NCCL_NVLS_ENABLE=0
nvidia-smi topo -m > "$out/topology.txt" 2>&1
common=(--backend cuda --suite inference --dtype bf16)
gen="tiny:generate:2x16x8,llama-3.2-1b:generate:2x16x8:graph"
timeout 60 "$R" run "${common[@]}" --seed 7 --repetitions 1 --shape "$gen" --out "$out/gen-tp1.json" > "$out/gen-tp1.log" 2>&1
echo "gen tp1: $?"
timeout 90 "$R" run --ranks 4 --comm-timeout 60 "${common[@]}" --seed 7 --repetitions 1 \
  --shape "tiny:generate:2x16x8:tp4,llama-3.2-1b:generate:2x16x8:graph:tp4" --out "$out/gen-tp4.json" > "$out/gen-tp4.log" 2>&1
echo "gen tp4: $?"
python3 - "$out" <<'PY'
import json, sys
one = {r["name"]: r for r in json.load(open(sys.argv[1] + "/gen-tp1.json"))["results"]}
for r in json.load(open(sys.argv[1] + "/gen-tp4.json"))["results"]:
    ref = one.get(r["name"][:-4], {}).get("outputs", {}).get("greedy_tokens")
    same = ref is not None and r.get("outputs", {}).get("greedy_tokens") == ref
    print(r["name"], r["status"], "check", r.get("correctness", {}).get("passed"), "tokens equal tp1's:", same)
    i = r["implementation"].find("queued on the"); print("  ", r["implementation"][i:i + 200])
PY
for tp in 1 2 4; do
  launch=(); suffix=""; [ $tp -gt 1 ] && launch=(--ranks $tp --comm-timeout 60) && suffix=":tp$tp"
  timeout 100 "$R" run "${launch[@]}" "${common[@]}" --repetitions 10 --shape "llama-3.1-8b:decode:1x512:graph:fused$suffix" \
    --out "$out/8b-tp$tp.json" > "$out/8b-tp$tp.log" 2>&1
  echo "8b tp$tp: $?"; grep -h "^\[1/1\]" "$out/8b-tp$tp.log" | cut -c1-150
done
cd "$out" && tar czf results.tar.gz *.json *.log *.txt && rm -f *.log *.json *.txt
