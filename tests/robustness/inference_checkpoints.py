#!/usr/bin/env python3
"""Bad model inputs to the inference suite (issue 35: D2, D3, D4, D15, D16): a run refuses
each one before measuring anything, exit 2, with the file, tensor or field named.

Writes a tiny Llama checkpoint (bf16, as transformers saves it) into WORK_DIR, then for each
case a corrupted copy, and runs `rooftop run --suite inference --shape DIR:decode:1xC` on it.
With --fixtures DIR (transformers' own checkpoints, ../shared/fixtures/hf-tiny-llama3), also
checks that those still load; that part is skipped when the folder is absent.

usage: inference_checkpoints.py ROOFTOP WORK_DIR d2|d3|d4|d15|d16|outputs_first [--fixtures DIR]
"""
import json
import os
import random
import shutil
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from cli_checks import expect, run  # noqa: E402

CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 128,
    "max_position_embeddings": 64, "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "tie_word_embeddings": False,
    "attention_bias": False, "mlp_bias": False, "hidden_act": "silu",
}
# The largest context a decode point of CONFIG may have: its positions less the 8 steps a repetition times.
MAX_CONTEXT = CONFIG["max_position_embeddings"] - 8


def bf16(x):
    return struct.unpack("<I", struct.pack("<f", x))[0] >> 16


def tensors(config, seed=7):
    """name -> (dtype, shape, bytes): a Llama checkpoint's tensors in bf16, small random values."""
    rng = random.Random(seed)
    h, i, v = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    q, kv = config["num_attention_heads"] * config["head_dim"], config["num_key_value_heads"] * config["head_dim"]

    def make(shape, value=None):
        n = 1
        for d in shape:
            n *= d
        vals = [value if value is not None else rng.uniform(-0.1, 0.1) for _ in range(n)]
        return ("BF16", list(shape), struct.pack(f"<{n}H", *(bf16(x) for x in vals)))

    out = {"model.embed_tokens.weight": make([v, h]), "model.norm.weight": make([h], 1.0), "lm_head.weight": make([v, h])}
    for layer in range(config["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        out.update({p + "input_layernorm.weight": make([h], 1.0), p + "post_attention_layernorm.weight": make([h], 1.0),
                    p + "self_attn.q_proj.weight": make([q, h]), p + "self_attn.k_proj.weight": make([kv, h]),
                    p + "self_attn.v_proj.weight": make([kv, h]), p + "self_attn.o_proj.weight": make([h, q]),
                    p + "mlp.gate_proj.weight": make([i, h]), p + "mlp.up_proj.weight": make([i, h]),
                    p + "mlp.down_proj.weight": make([h, i])})
    return out


def safetensors_bytes(ts, offsets=None):
    """A safetensors file of `ts` (name -> (dtype, shape, bytes)); `offsets` overrides some data_offsets."""
    header, data = {}, b""
    for name, (dtype, shape, raw) in ts.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    for name, off in (offsets or {}).items():
        header[name]["data_offsets"] = off
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


GOOD = tensors(CONFIG)
GOOD_FILE = safetensors_bytes(GOOD)


def checkpoint(work, name, config=CONFIG, files=None):
    """A checkpoint folder: config.json and `files` (file name -> bytes), CONFIG's weights by default."""
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config, f)
    for fname, data in (files if files is not None else {"model.safetensors": GOOD_FILE}).items():
        with open(os.path.join(d, fname), "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
    return d


def decode(rooftop, model, context=16):
    print(f"decode {model} at context {context}", flush=True)
    return run(rooftop, "run", "--suite", "inference", "--shape", f"{model}:decode:1x{context}", "--repetitions", "1")


def refused(rooftop, model, *texts, context=16):
    got = decode(rooftop, model, context)
    for text in texts:
        expect(2, text, got)
    if " ok" in got[1] or "failed" in got[1]:
        sys.exit(f"{model}: a point was measured before the refusal:\n{got[1]}")


def with_tensor(ts, name, **change):
    dtype, shape, raw = ts[name]
    new = dict(ts)
    new[name] = (change.get("dtype", dtype), change.get("shape", shape), change.get("raw", raw))
    return new


def bad_value(ts, name, bits):
    """`ts` with the tensor's 5th element set to the bf16 `bits`."""
    raw = bytearray(ts[name][2])
    raw[8:10] = struct.pack("<H", bits)
    return with_tensor(ts, name, raw=bytes(raw))


ST = "model.safetensors"
Q0 = "model.layers.0.self_attn.q_proj.weight"


def d2(rooftop, work):
    """A bad checkpoint is an input error, found before any point is measured."""
    good, st, q0 = GOOD, ST, Q0
    expect(0, "ok", decode(rooftop, checkpoint(work, "good")))
    whole = GOOD_FILE
    refused(rooftop, checkpoint(work, "truncated", files={st: whole[:-100]}), "truncated", st)
    refused(rooftop, checkpoint(work, "header_past_end", files={st: struct.pack("<Q", len(whole)) + whole[8:]}),
            "runs past the end of the file")
    k0, v0 = "model.layers.0.self_attn.k_proj.weight", "model.layers.0.self_attn.v_proj.weight"
    first_k = json.loads(whole[8:8 + struct.unpack("<Q", whole[:8])[0]])[k0]["data_offsets"]
    refused(rooftop, checkpoint(work, "overlap", files={st: safetensors_bytes(good, {v0: first_k})}), "overlap")
    missing = {k: t for k, t in good.items() if k != "model.norm.weight"}
    refused(rooftop, checkpoint(work, "missing", files={st: safetensors_bytes(missing)}), "no tensor 'model.norm.weight'")
    up = "model.layers.1.mlp.up_proj.weight"
    refused(rooftop, checkpoint(work, "shape", files={st: safetensors_bytes(with_tensor(good, up, shape=[64, 128]))}),
            f"tensor '{up}' has shape [64, 128], the model config needs [128, 64]")
    refused(rooftop, checkpoint(work, "dtype", files={st: safetensors_bytes(with_tensor(good, q0, dtype="I16"))}),
            f"tensor '{q0}' is I16: the decoder reads F32, BF16 or F16")
    pointer = ("version https://git-lfs.github.com/spec/v1\n"
               "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 2888376\n")
    refused(rooftop, checkpoint(work, "lfs", files={st: pointer}), "Git LFS pointer file", "git lfs pull")


def d3(rooftop, work):
    """Values that make every token garbage."""
    good, st, q0 = GOOD, ST, Q0
    refused(rooftop, checkpoint(work, "nan", files={st: safetensors_bytes(bad_value(good, q0, 0x7fc0))}),
            f"tensor '{q0}' holds a NaN (element 4)", st)
    refused(rooftop, checkpoint(work, "inf", files={st: safetensors_bytes(bad_value(good, q0, 0xff80))}),
            f"tensor '{q0}' holds an infinity (element 4)")
    for eps in (1e300, 0, -1e-5):
        refused(rooftop, checkpoint(work, "eps", dict(CONFIG, rms_norm_eps=eps)), "'rms_norm_eps' is", "outside (0, 1]")
    with open(os.path.join(work, "eps", "config.json"), "w") as f:  # beyond a double
        f.write(json.dumps(CONFIG).replace('"rms_norm_eps": 1e-05', '"rms_norm_eps": 1e400'))
    refused(rooftop, os.path.join(work, "eps"), "model config is not valid JSON", "number overflow parsing '1e400'")
    refused(rooftop, checkpoint(work, "theta", dict(CONFIG, rope_theta=0)), "'rope_theta' is 0, outside (0, 1e+12]")
    refused(rooftop, checkpoint(work, "heads", dict(CONFIG, num_attention_heads=1 << 40)),
            "'num_attention_heads' is 1099511627776, not a positive integer up to 16384")


def d4(rooftop, work):
    """One tensor in two shards, and an index that maps a tensor to another shard."""
    good = GOOD
    names = list(good)
    first = {k: good[k] for k in names[:10]}
    second = {k: good[k] for k in names[10:]}
    # The second copy all zeros: the tensor the old reader took from the first file by name.
    zeros = dict(second, **{"model.norm.weight": ("BF16", [64], bytes(128))})
    a, b = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"
    refused(rooftop, checkpoint(work, "twice", files={a: safetensors_bytes(first), b: safetensors_bytes(zeros)}),
            "tensor 'model.norm.weight' is in two shards", a, b)
    weight_map = {k: a for k in first} | {k: b for k in second}
    shards = {a: safetensors_bytes(first), b: safetensors_bytes(second)}
    expect(0, "ok", decode(rooftop, checkpoint(work, "sharded", files=dict(shards, **{
        "model.safetensors.index.json": json.dumps({"metadata": {}, "weight_map": weight_map})}))))
    weight_map[names[0]] = b
    refused(rooftop, checkpoint(work, "index", files=dict(shards, **{
        "model.safetensors.index.json": json.dumps({"metadata": {}, "weight_map": weight_map})})),
            f"lists tensor '{names[0]}' in {b}, but it is in", a)


def d15(rooftop, work):
    """The context check counts the decode steps a repetition times: the largest context it allows runs."""
    expect(0, "ok", decode(rooftop, checkpoint(work, "good"), MAX_CONTEXT))
    refused(rooftop, checkpoint(work, "context"), f"needs {MAX_CONTEXT + 9} positions (context {MAX_CONTEXT + 1} and the 8 "
            f"decode steps a repetition times)", f"choose a context of at most {MAX_CONTEXT}", context=MAX_CONTEXT + 1)


def d16(rooftop, work, fixtures):
    """Fields that would make the decoder compute another model."""
    good, st = GOOD, ST
    # Issue 37: biases a config turns on must be in the checkpoint; a window, an activation or an
    # architecture the family does not have are refused by field.
    for field, value, text in (("attention_bias", True, "no tensor 'model.layers.0.self_attn.q_proj.bias'"),
                               ("mlp_bias", True, "no tensor 'model.layers.0.mlp.gate_proj.bias'"),
                               ("sliding_window", 32, "field 'sliding_window' is 32: rooftop's decoder does not implement "
                                                      "sliding-window attention for model_type llama"),
                               ("architectures", ["MistralForCausalLM"], "another architecture than LlamaForCausalLM"),
                               ("hidden_act", "gelu", "field 'hidden_act' is \"gelu\""),
                               ("model_type", "gemma", "'model_type' is \"gemma\"")):
        d = checkpoint(work, "field", dict(CONFIG, **{field: value}))
        refused(rooftop, d, text)
        if field not in ("attention_bias", "mlp_bias"):  # the config alone is refused too
            expect(2, text, decode(rooftop, os.path.join(d, "config.json")))
    # Values only: a rope scaling rooftop does not compute is refused with real weights, timed with random ones.
    for field, value, text in (("rope_scaling", {"rope_type": "longrope", "factor": 4.0}, 'rope scaling of type "longrope"'),
                               ("partial_rotary_factor", 0.5, "partial_rotary_factor 0.5")):
        d = checkpoint(work, "values", dict(CONFIG, **{field: value}))
        refused(rooftop, d, "rooftop's decoder does not implement the config's " + text, "config.json alone")
        expect(0, "ok", decode(rooftop, os.path.join(d, "config.json")))  # random weights: the same work
    # Llama 3.x's own scaling (every Llama 3.1, 3.2 and 3.3 config has it), yarn and dynamic are computed: the
    # checkpoint runs.
    llama3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
              "original_max_position_embeddings": 64}
    yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32}
    for field, value in (("rope_scaling", llama3), ("rope_parameters", dict(llama3, rope_theta=500000.0)),
                         ("rope_scaling", yarn), ("rope_parameters", {"rope_type": "dynamic", "factor": 2.0})):
        expect(0, "ok", decode(rooftop, checkpoint(work, "scaled", dict(CONFIG, **{field: value}))))
    refused(rooftop, checkpoint(work, "bias", files={st: safetensors_bytes(dict(good, **{
        "model.layers.0.self_attn.q_proj.bias": ("BF16", [64], bytes(128))}))}),
            "tensor 'model.layers.0.self_attn.q_proj.bias' is a bias that the config")
    refused(rooftop, checkpoint(work, "layers", files={st: safetensors_bytes(dict(good, **{
        "model.layers.2.input_layernorm.weight": good["model.norm.weight"]}))}),
            "is of layer 2, but the config's num_hidden_layers is 2")

    if fixtures:
        fixture_checks(rooftop, fixtures)


def outputs_first(rooftop, work):
    """An unwritable --out is said before the checkpoint is read (planning reads it whole): here a checkpoint with a
    NaN, whose refusal would otherwise come first."""
    d = checkpoint(work, "nan-out", files={ST: safetensors_bytes(bad_value(GOOD, Q0, 0x7fc0))})
    got = run(rooftop, "run", "--suite", "inference", "--shape", f"{d}:decode:1x16", "--repetitions", "1", "--out", work)
    expect(2, "it is a directory", got)
    if "NaN" in got[1]:
        sys.exit(f"the checkpoint was read before --out was checked:\n{got[1]}")


def main():
    rooftop, work, cause = sys.argv[1], sys.argv[2], sys.argv[3]
    fixtures = sys.argv[sys.argv.index("--fixtures") + 1] if "--fixtures" in sys.argv else None
    work = os.path.join(work, cause)
    os.makedirs(work, exist_ok=True)
    if cause == "d16":
        d16(rooftop, work, fixtures)
    else:
        {"d2": d2, "d3": d3, "d4": d4, "d15": d15, "outputs_first": outputs_first}[cause](rooftop, work)


def fixture_checks(rooftop, fixtures):
    """transformers' own checkpoints run, with their weights and with their config alone (random weights). That their
    logits are transformers' is the unit test "transformers' checkpoints: the reference decoder gives ..."."""
    if not os.path.isdir(fixtures):
        print(f"{fixtures} is absent: transformers' checkpoints not checked")
        return
    expect(0, "ok", decode(rooftop, os.path.join(fixtures, "llama-plain")))
    rope = os.path.join(fixtures, "llama-llama3rope")
    expect(0, "ok", decode(rooftop, rope))
    expect(0, "ok", decode(rooftop, os.path.join(rope, "config.json")))
    # Every family and layout of tests/data/hf (issue 37), at a context past Mistral's and Qwen2's window of 16.
    ours = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "hf")
    for name in sorted(os.listdir(ours)):
        expect(0, "ok", decode(rooftop, os.path.join(ours, name), context=40))


if __name__ == "__main__":
    main()
    print(f"{sys.argv[3]}: every bad input refused with exit 2 before any point was measured")
