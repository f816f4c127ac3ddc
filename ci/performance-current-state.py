#!/usr/bin/env python3
"""Prints docs/PERFORMANCE.md's "Current state" table from the committed results files:
for each suite and device, the headline point's median time, achieved rate and % of the
roof, with the results file, its commit and the command that made it. Every figure is read
from a file under docs/results/, none is typed by hand.

usage: ci/performance-current-state.py [SOURCE_DIR]          prints the table (Markdown)
       ci/performance-current-state.py --check SOURCE_DIR  exit 1 where PERFORMANCE.md's differs

When a newer run replaces a headline, change its row in HEADLINES and paste the output
over the table (tests/CMakeLists.txt's `performance_current_state` checks that they agree).
"""
import json
import pathlib
import sys

# (suite, results file under docs/results/, the headline point); the device is read from the file
HEADLINES = [
    ("gemm", "cpu-quick-gemm.json", "gemm/cpu/bf16/m2048_n2048_k2048"),
    ("gemm", "cuda/h100-quick-gemm.json", "gemm/cuda/bf16/m4096_n4096_k4096"),
    ("gemm", "cuda/h200-quick-gemm.json", "gemm/cuda/bf16/m4096_n4096_k4096"),
    ("attention", "cpu-quick-attention.json",
     "attention/cpu/fp32/prefill_b1_hq8_hkv2_s1024_d128_causal_fused"),
    ("attention", "attention-cudnn-issue21/hopper-ws/h100-default-vs-cudnn.json",
     "attention/cuda/bf16/prefill_b2_hq16_hkv16_s8192_d128_causal_fused"),
    ("attention", "attention-cudnn-issue21/hopper-ws/h100-default-vs-cudnn.json",
     "attention/cuda/bf16/prefill_b2_hq16_hkv16_s8192_d128_causal_cudnn"),
    ("attention", "attention-cudnn-issue21/hopper-ws/h200-default-vs-cudnn.json",
     "attention/cuda/bf16/prefill_b2_hq16_hkv16_s8192_d128_causal_fused"),
    ("inference", "cpu-quick-inference.json",
     "inference/cpu/bf16/llama-3.2-1b_decode_b1_c512"),
    ("inference", "issue37/h100/inference-3b.json", "inference/cuda/bf16/llama-3.2-1b_decode_b1_c512_graph"),
    ("inference", "issue37/h100/inference-3b.json", "inference/cuda/bf16/llama-3.1-8b_decode_b1_c512_graph"),
    ("inference", "cuda/h100-quick-inference.json",
     "inference/cuda/bf16/llama-3.2-1b_prefill_b1_p512"),
    ("collectives", "cuda/h200x2-collectives-4g-1.json",
     "collectives/cuda/bf16/all_reduce_4G_oop_r2"),
]


def time_text(seconds):
    return f"{seconds * 1e3:.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} us"


def scaled(value, unit):
    """1.958e12 B/s as '1.958 TB/s', 2.9e11 FLOP/s as '290 GFLOP/s'."""
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M")):
        if value >= factor:
            return f"{value / factor:.4g} {prefix}{unit}"
    return f"{value:.4g} {unit}"


def rate_text(result):
    """The rate the point's roof bounds: FLOP/s under a compute roof, bytes/s under a memory
    roof, bus bandwidth for a collective."""
    throughput, roofline = result["throughput"], result.get("roofline") or {}
    if "bus_bytes_per_s" in throughput:
        return "busbw " + scaled(throughput["bus_bytes_per_s"], "B/s")
    if not roofline:  # no ceilings measured: no bound to choose by, so both rates
        return scaled(throughput["flops_per_s"], "FLOP/s") + ", " + scaled(throughput["bytes_per_s"], "B/s")
    if roofline.get("bound") == "memory":
        return scaled(throughput["bytes_per_s"], "B/s")
    return scaled(throughput["flops_per_s"], "FLOP/s")


def roof_text(result):
    throughput, roofline = result["throughput"], result.get("roofline") or {}
    if "percent_of_link" in throughput:
        return f"{throughput['percent_of_link']:.0f}% link"
    if roofline.get("percent_of_attainable") is None:
        return "- (no profile)"
    return f"{roofline['percent_of_attainable']:.0f}% {roofline['bound']}"


def device_text(run, result):
    """'NVIDIA H100 80GB HBM3', 'AMD EPYC (2c)', 'NVIDIA H200 x 2' for a collective's ranks."""
    properties, fingerprint = run["device"]["properties"], run["device"]["fingerprint"]
    name = properties.get("name") or properties.get("model_name") or fingerprint
    if run["device"]["backend"] == "cpu":
        name += f" ({fingerprint.split('-')[-2]})"
    ranks = (result.get("params") or {}).get("ranks")
    return f"{name} x {ranks}" if ranks and ranks > 1 else name


def short_command(command):
    """The command without its output paths (machine-specific), cut where it repeats a flag."""
    words, kept, seen = command.split(), [], set()
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in ("--out", "--trace"):
            skip = True
            continue
        if word.startswith("--") and word in seen:
            kept.append("...")
            break
        seen.add(word)
        kept.append(word)
    return " ".join(kept)


def table(source):
    lines = []
    emit = lines.append  # collected, then printed or compared
    files = []
    emit("| suite | device | point | median | achieved | roof | file |")
    emit("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for suite, file, point in HEADLINES:
        path = source / "docs" / "results" / file
        run = json.loads(path.read_text())
        matches = [r for r in run["results"] if r["name"] == point]
        if len(matches) != 1:
            sys.exit(f"{path}: no single result named {point}: fix HEADLINES in ci/performance-current-state.py")
        r = matches[0]
        device = device_text(run, r)
        if file not in [f for f, _ in files]:
            files.append((file, run))
        number = [f for f, _ in files].index(file) + 1
        emit(f"| {suite} | {device} | `{point.split('/', 3)[3]}` {r['dtype']} | {time_text(r['summary']['median_s'])} | "
              f"{rate_text(r)} | {roof_text(r)} | [{number}] |")
    emit("")
    for number, (file, run) in enumerate(files, 1):
        emit(f"{number}. `docs/results/{file}` (commit {run['rooftop']['git_commit'][:7]}, "
              f"{run['created'][:10]}): `{short_command(run['command'])}`")
    return "\n".join(lines) + "\n"


def main():
    check = sys.argv[1:2] == ["--check"]
    args = sys.argv[2:] if check else sys.argv[1:]
    source = pathlib.Path(args[0]) if args else pathlib.Path(__file__).resolve().parent.parent
    generated = table(source)
    if not check:
        sys.stdout.write(generated)
        return
    text = (source / "docs" / "PERFORMANCE.md").read_text()
    begin, end = "<!-- current-state: generated", "<!-- current-state: end -->"
    if begin not in text or end not in text:
        sys.exit(f"docs/PERFORMANCE.md has no '{begin}' ... '{end}' section")
    start = text.index("\n", text.index(begin)) + 1
    if text[start:text.index(end)] != generated:
        sys.exit("docs/PERFORMANCE.md's current state differs from the committed results files: paste the output "
                 "of ci/performance-current-state.py over it")
    print("docs/PERFORMANCE.md's current state matches the committed results files")


if __name__ == "__main__":
    main()
