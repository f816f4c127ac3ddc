#!/usr/bin/env python3
"""Prints docs/PERFORMANCE.md's "Current state" table from the committed results files:
for each suite's headline points and each device, the newest committed run's median time,
achieved rate and % of the roof, with the results file, its commit and the command that
made it. Every results file under docs/results/ is read and every figure comes from one;
none is typed by hand, and no list of files is kept: a newer run committed changes the table.

usage: ci/performance-current-state.py [SOURCE_DIR]          prints the table (Markdown)
       ci/performance-current-state.py --check SOURCE_DIR  exit 1 where PERFORMANCE.md's differs

When a newer run is committed, paste the output over the table (tests/CMakeLists.txt's
`performance_current_state` fails until they agree).
"""
import json
import pathlib
import re
import sys

# The headline points of each suite, by name (any device). For each headline point and device
# the table shows the newest committed run of it: every results file under docs/results/ is
# read, so a newer run of a point changes the table, and the test fails until it is pasted.
HEADLINES = [
    ("gemm", r"gemm/(cpu/bf16/m2048_n2048_k2048|cuda/bf16/m4096_n4096_k4096)"),
    ("attention", r"attention/(cpu/fp32/prefill_b1_hq8_hkv2_s1024_d128_causal_fused"
                  r"|cuda/bf16/prefill_b2_hq16_hkv16_s8192_d128_causal_(fused|cudnn))"),
    ("inference", r"inference/(cpu/bf16/llama-3\.2-1b_decode_b1_c512"
                  r"|cuda/bf16/llama-3\.2-1b_decode_b1_c512_graph|cuda/bf16/llama-3\.1-8b_decode_b1_c512_graph"
                  r"|cuda/bf16/llama-3\.2-1b_prefill_b1_p512)"),
    ("collectives", r"collectives/cuda/bf16/all_reduce_4G_oop_r2"),
]


# Runs made slower on purpose by a build or a wrapper, with nothing in the file to say so (the
# gate's calibration before `ROOFTOP_INJECT_SLOWDOWN` recorded its injection).
ALTERED = re.compile(r"gate-calibration/(.*/)?[^/]*slow[^/]*\.json")


def committed_runs(source):
    """Every complete results file under docs/results/ with its runs' ok results, none made
    with an injected slowdown."""
    for path in sorted((source / "docs" / "results").rglob("*.json")):
        if ALTERED.fullmatch(path.relative_to(source / "docs" / "results").as_posix()):
            continue
        try:
            run = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError):
            continue
        if not isinstance(run, dict) or "schema" not in run or not isinstance(run.get("results"), list):
            continue
        if not run.get("complete", True) or run.get("injected_slowdown"):
            continue
        yield path.relative_to(source / "docs" / "results").as_posix(), run


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
    # (suite order, point, device) -> the newest (created, file, run, result)
    newest = {}
    for file, run in committed_runs(source):
        for r in run["results"]:
            if r.get("status") != "ok" or not r.get("throughput") or not (r.get("summary") or {}).get("median_s"):
                continue
            for order, (suite, pattern) in enumerate(HEADLINES):
                if re.fullmatch(pattern, r["name"]):
                    key = (order, r["name"], device_text(run, r))
                    if key not in newest or (run.get("created", ""), file) > newest[key][:2]:
                        newest[key] = (run.get("created", ""), file, run, r)
    lines = []
    emit = lines.append  # collected, then printed or compared
    files = []
    emit("| suite | device | point | median | achieved | roof | file |")
    emit("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for (order, point, device), (_, file, run, r) in sorted(newest.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1])):
        if file not in [f for f, _ in files]:
            files.append((file, run))
        number = [f for f, _ in files].index(file) + 1
        emit(f"| {HEADLINES[order][0]} | {device} | `{point.split('/', 3)[3]}` {r['dtype']} | "
             f"{time_text(r['summary']['median_s'])} | {rate_text(r)} | {roof_text(r)} | [{number}] |")
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
