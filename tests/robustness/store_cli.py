#!/usr/bin/env python3
"""Issue 35, the store group: the baseline store and the tuning file against hostile contents.

d1  `baseline update` of several suites writes all of them or none (a later suite refused
    leaves the earlier ones as they were).
d12 a symbolic link inside the baseline store is refused (exit 2), never written through.
d11 a symbolic-link loop in the store, and a tuning folder that cannot be written, are exit 2
    with the path named (tune says it before timing anything).
d9  a tuned tile that is not one of its point's tiles: the point runs its default tile, a
    warning names the tuning file and the entry, the results record why.
d10 a tuning file of another device (its own fingerprint): its tiles are not used.

usage: store_cli.py ROOFTOP SOURCE_DIR WORK_DIR CASE
"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cli_checks  # noqa: E402
from cli_checks import expect, fail  # noqa: E402

rooftop, source, work, case = sys.argv[1:5]
work = os.path.join(work, case)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
home = os.path.join(work, "home")
os.environ["ROOFTOP_HOME"] = home

gemm_file = os.path.join(source, "docs", "results", "cpu-quick-gemm.json")
attention_file = os.path.join(source, "docs", "results", "cpu-quick-attention.json")
fp = json.load(open(gemm_file))["device"]["fingerprint"]


def run(*args):
    return cli_checks.run(rooftop, *args)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def store(name):
    return os.path.join(work, name)


def two_suites():
    """A run of two suites (attention and gemm, promoted in that order), made of the two kept quick runs."""
    both = json.load(open(gemm_file))
    both["results"] += json.load(open(attention_file))["results"]
    path = os.path.join(work, "both.json")
    json.dump(both, open(path, "w"))
    return path


def d1():
    both = two_suites()
    # A later suite's file cannot be written: nothing is, not even the earlier suite's.
    s = store("target")
    os.makedirs(os.path.join(s, fp, "gemm.json"))  # a folder where gemm's file goes
    expect(2, "gemm.json", run("baseline", "update", both, "--baselines", s))
    if os.path.exists(os.path.join(s, fp, "attention.json")):
        fail("the update was refused for gemm but attention's baseline was written")
    # --append: attention pools, gemm refuses (this run is already in it): attention stays.
    s = store("append")
    expect(0, "wrote", run("baseline", "update", gemm_file, "--baselines", s))
    expect(0, "wrote", run("baseline", "update", attention_file, "--baselines", s))
    kept = read(os.path.join(s, fp, "attention.json"))
    expect(2, "already in", run("baseline", "update", both, "--append", "--baselines", s))
    if read(os.path.join(s, fp, "attention.json")) != kept:
        fail("--append was refused for gemm but attention's baseline was replaced")
    # A writer's temporary is ".<name>.rooftop-tmp.<pid>": any hidden file is one left behind.
    if [f for f in os.listdir(os.path.join(s, fp)) if f.startswith(".")]:
        fail(f"temporary files left in the store: {os.listdir(os.path.join(s, fp))}")
    # An update that can be done writes both.
    code, out = run("baseline", "update", both, "--baselines", store("both"))
    if code != 0 or out.count("wrote") != 2:
        fail(f"a clean update of two suites: exit {code}\n{out}")


def d12():
    # A committed link in the store, to a file outside it, is not written through...
    victim = os.path.join(work, "victim.txt")
    open(victim, "w").write("precious\n")
    s = store("file")
    os.makedirs(os.path.join(s, fp))
    os.symlink(victim, os.path.join(s, fp, "gemm.json"))
    expect(2, "gemm.json is a symbolic link inside the baseline store", run("baseline", "update", gemm_file, "--baselines", s))
    if read(victim) != b"precious\n":
        fail("baseline update wrote through a link in the store to a file outside it")
    # ... nor a linked fingerprint folder.
    outside = os.path.join(work, "outside")
    os.makedirs(outside)
    s = store("folder")
    os.makedirs(s)
    os.symlink(outside, os.path.join(s, fp))
    expect(2, f"{fp} is a symbolic link", run("baseline", "update", gemm_file, "--baselines", s))
    if os.listdir(outside):
        fail(f"baseline update wrote through a linked folder: {os.listdir(outside)}")


# The tuning file: one CPU prefill point (fp32 has oneDNN tiles on any CPU).
point = "attention/cpu/fp32/prefill_b1_hq8_hkv2_s96_d64_full_fused"
quick = ["--suite", "attention", "--shape", "prefill:1x8x2x96x64", "--repetitions", "2", "--min-time", "0.002",
         "--dtype", "fp32"]


def tuning_file():
    code, out = run("info")
    match = re.search(r"fingerprint: (\S+)", out)
    if code != 0 or not match:
        fail(f"rooftop info gives no fingerprint: exit {code}\n{out}")
    return match.group(1), os.path.join(home, "tuning", match.group(1) + ".json")


def write_tuning(path, fingerprint, tile):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    json.dump({"fingerprint": fingerprint, "points": {point: {"tile": tile, "tuned_at": "2026-11-24T00:00:00Z"}}},
              open(path, "w"))


def run_point():
    out_file = os.path.join(work, "r.json")
    got = run("run", *quick, "--out", out_file)
    return got, json.load(open(out_file))["results"][0] if os.path.exists(out_file) else None


def d11():
    # A link loop in the store: exit 2 naming the path, for each command that reads the store.
    s = store("loop")
    os.makedirs(os.path.join(s, fp))
    loop = os.path.join(s, fp, "gemm.json")
    os.symlink(loop, loop)
    expect(2, "gemm.json", run("baseline", "update", gemm_file, "--baselines", s))
    expect(2, "gemm.json", run("baseline", "update", gemm_file, "--append", "--baselines", s))
    expect(2, "gemm.json", run("gate", gemm_file, "--baseline", s))
    here, _ = tuning_file()  # `baseline show` lists this machine's baselines
    os.makedirs(os.path.join(s, here), exist_ok=True)
    loop = os.path.join(s, here, "attention.json")
    os.symlink(loop, loop)
    expect(2, "attention.json", run("baseline", "show", "--baselines", s))
    # tune with a tuning folder that cannot be made: exit 2 before any timing.
    not_a_folder = os.path.join(work, "home-is-a-file")
    open(not_a_folder, "w").write("")
    os.environ["ROOFTOP_HOME"] = not_a_folder
    code, out = run("tune", *quick)
    if code != 2 or "tuning folder" not in out or "speed-up" in out:
        fail(f"tune with an unwritable tuning folder: expected exit 2 before timing, got exit {code}:\n{out}")


def d9():
    here, path = tuning_file()
    write_tuning(path, here, "m8n128")  # 8 query rows: not a tile of this point (tune never chose it)
    got, r = run_point()
    expect(0, f"the tuned tile 'm8n128' of {point} in {path} is not one of this point's tiles", got)
    if "rooftop tune" not in got[1] or not r or r["status"] != "ok" or "m8n128" not in r["params"]["tile_source"] \
            or not r["params"]["tile_source"].startswith("default"):
        fail(f"the point did not run its default tile, or its results do not say why:\n{got[1]}\n{r}")


def d10():
    _, path = tuning_file()
    write_tuning(path, "cpu-another-machine", "m64n128")
    got, r = run_point()
    expect(0, "tuned on device cpu-another-machine, not on this one", got)
    if not r or r["status"] != "ok" or r["params"].get("tile") == "m64n128" or r["params"]["tile_source"].startswith("tuned"):
        fail(f"another device's tile was used:\n{got[1]}\n{r}")


{"d1": d1, "d12": d12, "d11": d11, "d9": d9, "d10": d10}[case]()
print(f"store {case}: ok")
