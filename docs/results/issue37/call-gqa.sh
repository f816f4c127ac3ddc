#!/usr/bin/env bash
# Issue 37, item 1 (every grouped-query layout on the fast decode path): on the GPU machine,
# given a bundle (ci/make-bundle.sh) of branch i37-gqa,
#   1. the GPU tests of the split-KV decode kernel (every group 1-16; odd groups 3, 5, 6, 7
#      and 12 at head dims 64 and 128, contiguous and paged, every dtype) and of the
#      inference decoder (groups 3, 5, 6, 7, 12, 16 from a config JSON, eager, graph and
#      paged; group 17 and head dim 32 on the generic kernel, said so), then all the
#      inference GPU tests as a regression check;
#   2. the attention suite's decode at B = 1, 8 KV heads, groups 1-16: head dim 128 at 512
#      and 4096 keys (contiguous and paged16), head dim 64 at 512 keys;
#   3. the inference decoder, decode B = 1 at context 512, groups 1-16 (query heads 8 x g over
#      8 KV heads of 128) on a 4-layer probe of Llama-3.2-3B's body (hidden 3072, MLP 8192,
#      vocabulary 128256, tied): the issue's probe, every group;
#   4. the whole Llama-3.2-3B config (28 layers, 24/8 heads: group 3; target <= 2.6 ms, was
#      33.1) beside its group-4 twin (32/8) and the built-in llama-3.2-1b and llama-3.1-8b.
# Results JSON and logs under $OUT. Each step has its own time bound (a run's 10 minutes in all).
#
# usage: OUT=/some/dir docs/results/issue37/call-gqa.sh rooftop-*.tar.gz [steps]
#   steps: any of 1234 (default all), e.g. "23" for the sweeps only.
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out" /tmp/b
steps=${2:-1234}
tar -C /tmp/b -xzf "$1"; bin=$(echo /tmp/b/rooftop-*/bin)
export ROOFTOP_HOME=/tmp/rooftop-home NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader | tee "$out/gpu.txt"
"$bin/rooftop" --version > "$out/version.txt" 2>&1 || true

# A Llama-3.2-3B body with 8 x G query heads over 8 KV heads of 128 and L layers.
cfg=/tmp/gqa-configs; mkdir -p "$cfg"
config() {  # config NAME HEADS KV_HEADS LAYERS
  cat > "$cfg/$1.json" <<EOF
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 3072,
 "intermediate_size": 8192, "num_hidden_layers": $4, "num_attention_heads": $2,
 "num_key_value_heads": $3, "head_dim": 128, "vocab_size": 128256, "max_position_embeddings": 131072,
 "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "tie_word_embeddings": true}
EOF
}

if [[ $steps == *1* ]]; then
  echo "=== 1. GPU tests: split-KV decode (every group), the decoder's groups, then all inference cases"
  timeout 300 "$bin/rooftop_gpu_tests" "split-KV decode*" --durations yes > "$out/gpu-tests-decode.txt" 2>&1
  echo "split-KV decode tests exit $?"; grep -E " s: |passed|failed" "$out/gpu-tests-decode.txt" | tail -6
  timeout 400 "$bin/rooftop_gpu_tests" "inference*" --durations yes > "$out/gpu-tests-inference.txt" 2>&1
  echo "inference tests exit $?"; grep -E " s: |passed|failed" "$out/gpu-tests-inference.txt" | tail -10
fi

if [[ $steps == *2* ]]; then
  echo "=== 2. attention suite decode, B = 1, 8 KV heads, groups 1-16"
  shapes=""
  for g in $(seq 1 16); do
    h=$((8 * g))
    shapes+="decode:1x${h}x8x512x128,decode:1x${h}x8x4096x128,decode:1x${h}x8x4096x128:paged16,decode:1x${h}x8x512x64,"
  done
  timeout 400 "$bin/rooftop" run --backend cuda --suite attention --dtype bf16 --repetitions 5 --shape "${shapes%,}" \
    --out "$out/attention-groups.json" > "$out/attention-groups.log" 2>&1
  echo "attention sweep exit $?"; grep -E " ok$|failed|skipped|error" "$out/attention-groups.log" | cut -c1-170 | tail -70
fi

if [[ $steps == *3* ]]; then
  echo "=== 3. inference decode B = 1 c512, 4-layer probe of the 3B body, groups 1-16"
  shapes=""
  for g in $(seq 1 16); do
    config "probe4-g$g" $((8 * g)) 8 4
    shapes+="$cfg/probe4-g$g.json:decode:1x512,"
  done
  timeout 500 "$bin/rooftop" run --backend cuda --suite inference --dtype bf16 --repetitions 5 --shape "${shapes%,}" \
    --out "$out/inference-probe-groups.json" > "$out/inference-probe-groups.log" 2>&1
  echo "probe sweep exit $?"; grep -E " ok$|failed|skipped|error|rooftop:" "$out/inference-probe-groups.log" | cut -c1-170 | tail -20
fi

if [[ $steps == *4* ]]; then
  echo "=== 4. Llama-3.2-3B (28 layers, 24/8) beside its group-4 twin and the built-in models"
  config llama-3.2-3b 24 8 28
  config llama-3.2-3b-g4 32 8 28
  timeout 500 "$bin/rooftop" run --backend cuda --suite inference --dtype bf16 --repetitions 5 \
    --shape "$cfg/llama-3.2-3b.json:decode:1x512,$cfg/llama-3.2-3b-g4.json:decode:1x512,$cfg/llama-3.2-3b.json:decode:1x512:paged16,llama-3.2-1b:decode:1x512,llama-3.1-8b:decode:1x512" \
    --out "$out/inference-3b.json" > "$out/inference-3b.log" 2>&1
  echo "3B run exit $?"; grep -E " ok$|failed|skipped|error|rooftop:" "$out/inference-3b.log" | cut -c1-170
fi
# A line a point: its median, its compulsory bytes over that time against the datasheet's HBM
# bandwidth (the roofline needs a device profile, which this fresh machine has not), and which
# attention kernel ran: the split-KV kernel named, or "no fast decode kernel for ..." (GENERIC).
python3 - "$out" <<'EOF' | tee "$out/summary.txt"
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    try:
        doc = json.load(open(f))
    except Exception:
        continue
    hbm = max((b["bytes_per_s"] for b in (doc.get("ceilings", {}).get("datasheet") or {}).get("bandwidth", [])), default=0)
    for r in doc.get("results", []):
        impl = r.get("implementation") or ""
        kernel = "split-KV" if "split-KV" in impl else ("GENERIC" if "no fast decode kernel" in impl else "-")
        med = (r.get("summary") or {}).get("median_s")
        work = r.get("work") or {}
        bw = work.get("memory_bytes", work.get("bytes", 0)) / med if med else 0
        pct = f"{100 * bw / hbm:5.1f}% of HBM" if hbm and bw else ""
        ms = f"{med * 1e3:9.4f} ms" if med else ""
        print(f"{os.path.basename(f)[:-5]:26s} {r.get('shape', r.get('name')):48s} {r.get('status'):8s} {ms} {pct} {kernel}")
EOF
