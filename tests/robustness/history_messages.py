#!/usr/bin/env python3
"""Issue 35, D19: messages that said the wrong thing.

- no "0 run(s)": a history or a baseline with no run says so in words;
- a NUL byte in a name read from a file is shown escaped, not cutting the message there;
- a --shape run's header names no tier.

usage: history_messages.py ROOFTOP RESULTS.json WORK_DIR
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cli_checks  # noqa: E402

rooftop, source, work = sys.argv[1], sys.argv[2], cli_checks.fresh_dir(sys.argv[3])
run, expect = cli_checks.runner(rooftop), cli_checks.expect


night = json.load(open(source))
night["complete"] = True
results = os.path.join(work, "night.json")
json.dump(night, open(results, "w"))

# A history of no run of this device: "no run", not "0 run(s)".
empty = os.path.join(work, "empty.sqlite")
open(empty, "w").close()
expect(3, "holds no run of device", run("gate", results, "--history", empty), absent="run(s)")

# A baseline that keeps no run medians (an older baseline file): said in words.
store = os.path.join(work, "baselines")
expect(0, "", run("baseline", "update", results, "--baselines", store))
for folder, _, files in os.walk(store):
    for f in files:
        if f.endswith(".json") and f != "gate.json":
            path = os.path.join(folder, f)
            b = json.load(open(path))
            b.get("baseline", {}).pop("run_medians_s", None)
            json.dump(b, open(path, "w"))
expect(2, "keeps no run medians", run("gate", results, "--baseline", store, "--unit", "run"), absent="0 run(s)")

# A NUL byte in the device fingerprint of a results file: the whole message, the byte escaped.
nul = json.loads(json.dumps(night))
nul["device"]["fingerprint"] = "cpu\u0000evil"
nul_path = os.path.join(work, "nul.json")
json.dump(nul, open(nul_path, "w"))
expect(2, "'cpu\\x00evil' cannot name a file", run("gate", nul_path, "--baseline", store))

# A run of --shape has no tier: its header does not name one.
expect(0, "given shapes", run("run", "--suite", "gemm", "--shape", "8x8x8", "--dtype", "fp32", "--repetitions", "2",
                              "--min-time", "0.001"), absent="tier quick")
print("messages: no run in words, NUL escaped, no tier for --shape: ok")
