#!/usr/bin/env python3
"""Issue 52, inference inputs taken other than as given; each case fails on 8528c35.

n6  a serve point's name left out batch/budget/cache/seed/warmup/window and which lengths
    file: two loads that differ only in batch=, or two different lengths files, got one
    name, refused as "asked for twice (a suite or shape given twice?)", and across runs a
    baseline of one gated the other. Now every option that differs from its default is in
    the name, a lengths file by a digest of its pairs; the default load's name is unchanged.
n12 lenient parsing where the docs promise a refusal: a serve option given twice ran with the
    last (B34); `--prompt ''` was dropped and the point ran seeded ids (C19); a config's
    rope_scaling whose type is a number or missing, or a partial_rotary_factor "0.5" (a
    string), ran on random weights as "another rope type". Now each is exit 2.
n16 a checkpoint's config.json path (not its folder) ran seeded random weights, with --prompt,
    without a word (E24). Now --prompt with it is refused, naming the folder; without one the
    config alone runs random weights, as before, and a note says so.

usage: inputs_cli.py ROOFTOP SOURCE_DIR WORK_DIR CASE
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cli_checks  # noqa: E402
from cli_checks import expect, fail  # noqa: E402

rooftop, source, work, case = sys.argv[1:5]
work = cli_checks.fresh_dir(os.path.join(work, case))
os.environ["ROOFTOP_HOME"] = os.path.join(work, "home")
run = cli_checks.runner(rooftop)


def inference(*shapes, more=()):
    """`run --suite inference` of the shapes in fp32 (every CPU has it), one repetition."""
    return run("run", "--suite", "inference", "--dtype", "fp32", "--repetitions", "1", "--shape", ",".join(shapes), *more)


def names(path):
    return sorted(r["name"] for r in json.load(open(path))["results"])


def n6():
    out = os.path.join(work, "loads.json")
    # B55: two loads that differ in batch= only; and the default load, whose name is as before.
    expect(0, "tiny_serve_r40_n6_fixed16-6_window0_batch8",
           inference("tiny:serve:40x6:fixed=16/6:window=0:batch=4", "tiny:serve:40x6:fixed=16/6:window=0:batch=8",
                     "tiny:serve:40x6:fixed=16/6:window=0", more=("--out", out)))
    want = ["inference/cpu/fp32/tiny_serve_r40_n6_fixed16-6_window0", "inference/cpu/fp32/tiny_serve_r40_n6_fixed16-6_window0_batch4",
            "inference/cpu/fp32/tiny_serve_r40_n6_fixed16-6_window0_batch8"]
    if names(out) != want:
        fail(f"the serve points are named {names(out)}, not {want}")
    # B56: two lengths files of other pairs are two loads; the same pairs elsewhere (a comment
    # and commas) are the same load, asked for twice.
    files = {"a.txt": "16 6\n24 4\n", "b.txt": "24 4\n16 6\n", "c.txt": "# the pairs of a.txt\n16,6\n24,4\n"}
    for name, text in files.items():
        open(os.path.join(work, name), "w").write(text)
    shape = "tiny:serve:40x6:window=0:file=" + os.path.join(work, "{}")
    expect(0, "tiny_serve_r40_n6_file-", inference(shape.format("a.txt"), shape.format("b.txt"), more=("--out", out)))
    two = names(out)
    if len(set(two)) != 2 or not all("_file-" in n for n in two):
        fail(f"two lengths files of other pairs gave the points {two}")
    expect(2, "is asked for twice", inference(shape.format("a.txt"), shape.format("c.txt")))
    # Options at their defaults, given or not, name one load.
    expect(2, "is asked for twice", inference("tiny:serve:40x6:fixed=16/6:window=0", "tiny:serve:40x6:fixed=16/6:window=0:"
                                                                                      "warmup=2:seed=43:batch=64:budget=512"))


def config_folder(name, **fields):
    """A config folder: the shipped tiny model's config.json with `fields` changed (None: removed)."""
    config = json.load(open(os.path.join(source, "suites", "inference", "models", "tiny.json")))
    for key, value in fields.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    folder = os.path.join(work, name)
    os.makedirs(folder)
    json.dump(config, open(os.path.join(folder, "config.json"), "w"))
    return folder


def n12():
    # B34: a serve option given twice ran with the last (docs/inference.md: "Options, each once").
    expect(2, "'warmup' is given twice", inference("tiny:serve:40x4:fixed=16/6:warmup=2:warmup=5"))
    expect(2, "'batch' is given twice", inference("tiny:serve:40x4:fixed=16/6:batch=4:window=0:batch=8"))
    # C19: --prompt '' was dropped, and the point ran seeded ids.
    expect(2, "--prompt: it is empty", inference("tiny:prefill:1x8", more=("--prompt", "")), absent=" ok")
    # A mistyped rope_scaling or partial_rotary_factor ran on random weights as "another rope
    # type": refused with or without weights.
    for name, fields, said in (
            ("rope_type_number", {"rope_scaling": {"rope_type": 5, "factor": 2.0}},
             "'rope_scaling' rope_type is 5, not the name of a rope type"),
            ("rope_type_null_factor", {"rope_scaling": {"factor": 2.0}}, "'rope_scaling' has 'factor' but no 'rope_type'"),
            ("partial_rotary_str", {"partial_rotary_factor": "0.5"}, "'partial_rotary_factor' is \"0.5\", not a number"),
            ("partial_rotary_zero", {"partial_rotary_factor": 0}, "'partial_rotary_factor' is 0, outside (0, 1]")):
        expect(2, said, inference(config_folder(name, **fields) + ":prefill:1x8"), absent=" ok")
    # What transformers reads still runs: rope_parameters of rope_theta alone, another named
    # type and a fraction of the head on random weights.
    for name, fields in (("theta_alone", {"rope_parameters": {"rope_theta": 10000.0}}),
                         ("longrope", {"rope_scaling": {"rope_type": "longrope", "factor": 2.0}}),
                         ("partial_half", {"partial_rotary_factor": 0.5})):
        expect(0, " ok", inference(config_folder(name, **fields) + ":prefill:1x8"))


def n16():
    # E24: a checkpoint's config.json path ran seeded random weights with --prompt: other greedy
    # tokens than the checkpoint's, and no word on the terminal.
    model = os.path.join(source, "tests", "data", "hf", "llama-linear")
    config = os.path.join(model, "config.json")
    prompt = ("--prompt", "@" + os.path.join(model, "expected.json"))
    want = json.load(open(os.path.join(model, "expected.json")))
    shape = f":generate:1x{len(want['prompt'])}x{len(want['greedy_tokens'])}"
    # With --prompt: refused before anything runs, naming the folder that runs the weights.
    expect(2, f"--prompt with {config}: a checkpoint's config.json alone runs seeded random weights",
           inference(config + shape, more=prompt), absent=" ok")
    # The folder: the checkpoint's tokens (the control).
    out = os.path.join(work, "folder.json")
    expect(0, " ok", inference(model + shape, more=(*prompt, "--out", out)), absent="the config alone")
    r = json.load(open(out))["results"][0]
    if not r["params"]["weights"].startswith("checkpoint ") or r["outputs"]["greedy_tokens"][0] != want["greedy_tokens"]:
        fail(f"the checkpoint's folder ran weights {r['params']['weights']!r}, not its tokens")
    # Without --prompt the config alone is timed on random weights (the way out for a field
    # the decoder does not compute), and the terminal says so once.
    out = os.path.join(work, "alone.json")
    got = inference(config + ":prefill:1x8", config + ":prefill:1x16", more=("--out", out))
    expect(0, f"rooftop: note: {config}: the config alone, on seeded random weights", got)
    if got[1].count("rooftop: note: " + config) != 1 or f"name its folder, {model}," not in got[1]:
        fail(f"the note is not said once with the folder:\n{got[1]}")
    if json.load(open(out))["results"][0]["params"]["weights"] != "random (seeded)":
        fail("the config alone did not run random weights")


{"n6": n6, "n12": n12, "n16": n16}[case]()
print(f"inputs {case}: ok")
