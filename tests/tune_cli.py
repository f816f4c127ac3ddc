#!/usr/bin/env python3
"""`rooftop tune` end to end on a small CPU prefill (any CPU: fp32 always has oneDNN tiles):
every candidate tile is checked and timed and kept with its median in
$ROOFTOP_HOME/tuning/<fingerprint>.json; `rooftop run` then runs that point with the choice and
records where its tile came from, a point never tuned says it ran its default, a chosen tile
reaches the kernel. A broken tuning file: `run` warns and runs defaults, `tune` refuses it
before timing anything (exit 2). Nothing tunable is a usage error (exit 2).

usage: tune_cli.py ROOFTOP WORK_DIR
"""
import glob
import json
import os
import shutil
import sys

import cli_checks
from cli_checks import expect

rooftop, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
os.environ["ROOFTOP_HOME"] = os.path.join(work, "home")


def run(*args):
    return cli_checks.run(rooftop, *args)


quick = ["--repetitions", "5", "--min-time", "0.002", "--dtype", "fp32"]
expect(0, "wrote", run("tune", "--suite", "attention", "--shape", "prefill:1x8x2x96x64", *quick))
files = glob.glob(os.path.join(work, "home", "tuning", "*.json"))
if len(files) != 1:
    sys.exit(f"expected one tuning file, found {files}")
tuned = json.load(open(files[0]))["points"]
name = "attention/cpu/fp32/prefill_b1_hq8_hkv2_s96_d64_full_fused"
tiles = [c["tile"] for c in tuned.get(name, {}).get("candidates", [])]
if len(tiles) != 14 or tiles[0] != "" or tiles[-1] != "":
    sys.exit(f"expected {name} with the default, 12 candidates and the default again:\n{json.dumps(tuned, indent=1)[:2000]}")
if any(c["status"] != "ok" or not c["median_s"] > 0 for c in tuned[name]["candidates"]):
    sys.exit(f"a candidate did not run, or has no median: {tuned[name]['candidates']}")

out = os.path.join(work, "r.json")
expect(0, "tuned tiles for 1 point", run("run", "--suite", "attention", "--shape", "prefill:1x8x2x96x64,prefill:1x8x2x80x64",
                                        "--out", out, *quick))
params = {r["name"]: r["params"] for r in json.load(open(out))["results"]}
if not params[name]["tile_source"].startswith("tuned") or params[name]["tile"] != tuned[name]["tile"]:
    sys.exit(f"the tuned point ran {params[name]}, the file chose {tuned[name]['tile']!r}")
if "no tuned tile" not in params["attention/cpu/fp32/prefill_b1_hq8_hkv2_s80_d64_full_fused"]["tile_source"]:
    sys.exit("the untuned point does not say it ran its default")

# A non-default choice reaches the kernel: its tile in the results and in the implementation.
chosen = json.load(open(files[0]))
chosen["points"][name]["tile"] = "m64n128"
json.dump(chosen, open(files[0], "w"))
expect(0, "tuned tiles", run("run", "--suite", "attention", "--shape", "prefill:1x8x2x96x64", "--out", out, *quick))
r = json.load(open(out))["results"][0]
if r["params"]["tile"] != "m64n128" or "(m64n128)" not in r["implementation"]:
    sys.exit(f"the chosen tile m64n128 did not run: {r['params']}, {r['implementation']}")

expect(2, "nothing to tune", run("tune", "--suite", "attention", "--shape", "decode:1x32x8x1024x128", *quick))
open(files[0], "w").write('{"points": {"x": {"tile": "m64n128", "candidates": 7}}}')
expect(0, "run their default tiles", run("run", "--suite", "attention", "--shape", "prefill:1x8x2x96x64", *quick))
expect(2, "delete it and run `rooftop tune` again", run("tune", "--suite", "attention", "--shape", "prefill:1x8x2x96x64",
                                                      *quick))
print("tune and the per-device tuning file: ok")
