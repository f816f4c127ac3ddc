#!/usr/bin/env python3
"""PyTorch's SDPA backends on rooftop's attention shapes: the side-by-side anchor for the
cudnn and fused points (run on the GPU machine, in the same call as rooftop).

usage: torch-sdpa-anchor.py OUT.json SHAPE [SHAPE ...]
SHAPE as rooftop takes it: prefill:BxHqxHkvxSxD[:causal] or decode:BxHqxHkvxSkvxD.
Each backend's median of 50 timed calls (CUDA events) after 10 warm-ups; a backend that
refuses a shape is recorded with its reason."""
import json
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}


def parse(text):
    fields = text.split(":")
    b, hq, hkv, s, d = (int(x) for x in fields[1].split("x"))
    decode = fields[0] == "decode"
    return dict(decode=decode, b=b, hq=hq, hkv=hkv, sq=1 if decode else s, skv=s, d=d, causal="causal" in fields[2:])


def flops(p):
    pairs = p["sq"] * p["skv"]
    if p["causal"]:
        pairs = sum(min(i + 1 + p["skv"] - p["sq"], p["skv"]) for i in range(p["sq"]))
    return 4.0 * p["b"] * p["hq"] * pairs * p["d"]


def kv_bytes(p):
    return 2.0 * p["b"] * p["hkv"] * p["skv"] * p["d"] * 2


def time_ms(fn):
    for _ in range(10):
        fn()
    times = []
    for _ in range(50):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    out, shapes = sys.argv[1], sys.argv[2:]
    rows = []
    for text in shapes:
        p = parse(text)
        q = torch.randn(p["b"], p["hq"], p["sq"], p["d"], device="cuda", dtype=torch.bfloat16)
        k = torch.randn(p["b"], p["hkv"], p["skv"], p["d"], device="cuda", dtype=torch.bfloat16)
        v = torch.randn_like(k)
        for name, backend in BACKENDS.items():
            row = dict(shape=text, backend=name, torch=torch.__version__, cudnn=torch.backends.cudnn.version())
            try:
                with sdpa_kernel(backend):
                    ms = time_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=p["causal"],
                                                                        enable_gqa=p["hq"] != p["hkv"]))
                row.update(ms=ms, tflops=flops(p) / ms / 1e9, kv_tbps=kv_bytes(p) / ms / 1e9)
            except RuntimeError as e:
                row.update(refused=str(e).splitlines()[0][:200])
            rows.append(row)
            print(json.dumps(row), flush=True)
    json.dump(dict(device=torch.cuda.get_device_name(), rows=rows), open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
