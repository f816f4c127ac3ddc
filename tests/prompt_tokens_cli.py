#!/usr/bin/env python3
"""Tokens in, tokens out (issue 37): transformers' prompt given with --prompt to each checkpoint of
tests/data/hf, generated greedily in fp32 on this backend, gives transformers' greedy tokens and its
top logits at the prompt's last position (the results' outputs); a prompt that does not fit the
point is refused (exit 2) before anything is measured.

usage: prompt_tokens_cli.py ROOFTOP WORK_DIR [BACKEND]"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_checks import expect, fresh_dir, run  # noqa: E402

rooftop, work = sys.argv[1], fresh_dir(sys.argv[2])
backend = sys.argv[3] if len(sys.argv) > 3 else "cpu"
dtype = "fp32" if backend == "cpu" else "bf16"
data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "hf")
problems = []
for name in sorted(os.listdir(data)):
    model = os.path.join(data, name)
    with open(os.path.join(model, "expected.json")) as f:
        want = json.load(f)
    out = os.path.join(work, name + ".json")
    got = run(rooftop, "run", "--suite", "inference", "--backend", backend, "--dtype", dtype, "--repetitions", "1",
              "--shape", f"{model}:generate:1x{len(want['prompt'])}x{len(want['greedy_tokens'])}",
              "--prompt", "@" + os.path.join(model, "expected.json"), "--out", out)
    expect(0, " ok", got)
    with open(out) as f:
        r = json.load(f)["results"][0]
    outputs = r["outputs"]
    if r["params"]["prompt_tokens"] != want["prompt"] or not outputs["prompt"].startswith("given"):
        problems.append(f"{name}: the results do not keep the given prompt")
    if outputs["greedy_tokens"][0] != want["greedy_tokens"]:
        problems.append(f"{name}: greedy tokens {outputs['greedy_tokens'][0]}, transformers' {want['greedy_tokens']}")
    top = outputs["top_logits"][0]
    if top["ids"][:4] != want["top16"]["ids"][:4]:
        problems.append(f"{name}: top ids {top['ids'][:4]}, transformers' {want['top16']['ids'][:4]}")
    worst = max(abs(a - b) for a, b in zip(top["logits"], want["top16"]["logits"]))
    # fp32: transformers' own fp32 sums in another order; bf16: the decoders' bf16 logit bound.
    if worst > (1e-3 if dtype == "fp32" else 8 * 2 ** -8) * max(abs(x) for x in want["top16"]["logits"]):
        problems.append(f"{name}: top logits {worst:.3g} from transformers'")
    print(f"{name}: {len(want['greedy_tokens'])} greedy tokens equal transformers', top logits within {worst:.2g}")

model = os.path.join(data, "llama-plain" if os.path.isdir(os.path.join(data, "llama-plain")) else "llama-yarn")
ids = os.path.join(work, "ids.txt")
with open(ids, "w") as f:
    f.write("1 2\n3,4\n")
for args, text in (
        (["--shape", f"{model}:generate:1x5x2", "--prompt", "@" + ids], "--prompt has 4 token ids but the shape's prompt is 5"),
        (["--shape", f"{model}:decode:1x4", "--prompt", "1,2,3,4"], "decode point starts from a cache of random keys"),
        (["--shape", f"{model}:prefill:1x2", "--prompt", "1,256"], "token 256 (position 1) is not below"),
        (["--shape", f"{model}:prefill:1x2", "--prompt", "1,x"], "'x' is not a token id"),
        (["--shape", f"{model}:prefill:1x2", "--prompt", "@" + os.path.join(work, "none.txt")], "cannot open prompt file"),
        (["--prompt", "1,2"], "--prompt gives the tokens of the --shape points")):
    got = run(rooftop, "run", "--suite", "inference", "--backend", backend, *args)
    expect(2, text, got, absent=" ok")
if problems:
    sys.exit("\n".join(problems))
print("prompt tokens: transformers' tokens and logits from every checkpoint; bad prompts refused")
