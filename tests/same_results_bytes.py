#!/usr/bin/env python3
"""Are two results files the same text apart from what a run measures? Stricter than
same_results_layout.py: the files are compared as text, key order included, after every
timing-dependent value (samples, summary, throughput, roofline and power figures, the
run's date, host and process placement) is replaced by a placeholder. For a refactoring
that must leave the results files byte-identical: run the same command with the same
--seed before and after, then compare.

A third file, CONTROL, is the BEFORE command run again with the same binary: a field that
differs between BEFORE and CONTROL at any point varies run to run (a kernel chosen by timing,
and the logits it rounds differently; a parallel sum's rounding) and is masked at every point.

usage: same_results_bytes.py BEFORE.json AFTER.json [CONTROL.json]"""
import difflib
import json
import re
import sys

# Values that change run to run: masked, their keys kept (a key missing or added still shows).
TIMED = {"samples", "summary", "throughput", "power", "created", "host", "placement", "rooftop", "command"}
# Inside "roofline": the placement depends on the time; the ceiling it was held against does not.
ROOFLINE_TIMED = {"percent_of_attainable", "bound", "above_ceiling", "slow_generic_path"}
# A scenario's own measures (latencies, tokens per second) are timings too.
METRICS = "metrics"


def mask(value, key=None, parent=None):
    # The CPU inference picks its GEMV or oneDNN per shape by timing ("rooftop's GEMV where
    # faster: 7 of 17 shapes"), and the logits it outputs round with that choice.
    if key == "implementation" and isinstance(value, str):
        value = re.sub(r" \(rooftop's GEMV where faster: \d+ of \d+ shapes\)", "", value)
    if key == "logits" and parent is None:  # outputs.top_logits[].logits
        return shape_of(value)
    if key == "correctness" and isinstance(value, dict) and value.get("max_error_ratio") == 0:
        # An exact match everywhere: every element ties for the worst, and threads pick one.
        value = dict(value, worst_element="~exact")
    if key in TIMED or (parent == "roofline" and key in ROOFLINE_TIMED):
        return shape_of(value)
    if parent == METRICS:
        return shape_of(value)
    if isinstance(value, dict):
        return {k: mask(v, k, key) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v, None, parent) for v in value]
    return value


def shape_of(value):
    """The value's key structure with every leaf replaced: lengths and keys stay comparable."""
    if isinstance(value, dict):
        return {k: shape_of(v) for k, v in value.items()}
    if isinstance(value, list):
        return ["~" for _ in value] if value and not isinstance(value[0], (dict, list)) else [shape_of(v) for v in value]
    return "~" if value is not None else None


def leaves(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, path + (i,))
    else:
        yield path, value


def field(path):
    """The path without list positions: the same field of every point."""
    return tuple("[]" if isinstance(p, int) else p for p in path)


def mask_paths(value, paths, path=()):
    if field(path) in paths:
        return "~varies"
    if isinstance(value, dict):
        return {k: mask_paths(v, paths, path + (k,)) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_paths(v, paths, path + (i,)) for i, v in enumerate(value)]
    return value


def main(before_path, after_path, control_path=None):
    docs = []
    for path in (before_path, after_path):
        with open(path) as f:
            docs.append(mask(json.load(f)))  # dicts keep the file's key order
    if control_path:
        with open(control_path) as f:
            control = dict(leaves(mask(json.load(f))))
        varying = {field(p) for p, v in leaves(docs[0]) if p in control and control[p] != v}
        docs = [mask_paths(d, varying) for d in docs]
        print(f"fields that vary run to run (BEFORE vs CONTROL), masked: {sorted('.'.join(map(str, f)) for f in varying)}")
    texts = [json.dumps(d, indent=1).splitlines() for d in docs]
    diff = list(difflib.unified_diff(texts[0], texts[1], before_path, after_path, lineterm="", n=2))
    print("\n".join(diff[:80]))
    print(f"{before_path} vs {after_path}: {'identical apart from timings' if not diff else 'DIFFERENT'}")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
