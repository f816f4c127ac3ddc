#!/usr/bin/env python3
"""Hostile input files and sizes (issue 52: N1, N2, N4, N5): each refused with exit 2 and a
message that names the problem, never a crash, a hang or memory run out.
- N1: a value nested 300,000 deep in a model's config.json, a --prompt file, a results file
  read by gate and by report (quoting it recursed once a level: a segfault);
- N5: /dev/zero as a prompt file, a model config, a results file and a lengths file;
- N2, N4: sizes whose sums overflow int64 or whose schedule never ends.

usage: hostile_inputs_cli.py ROOFTOP RESULTS.json WORK_DIR"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_checks import expect, fresh_dir, run  # noqa: E402

rooftop, results, work = sys.argv[1], sys.argv[2], fresh_dir(sys.argv[3])
deep = "[" * 300000 + "]" * 300000
path = lambda name: os.path.join(work, name)
os.makedirs(path("model"))
with open(path("model/config.json"), "w") as f:
    f.write('{"hidden_size": ' + deep + "}")
with open(path("prompt.json"), "w") as f:
    f.write(deep)
run_json = json.load(open(results))
run_json["results"][0]["status"] = "X"
with open(path("deep-results.json"), "w") as f:
    f.write(json.dumps(run_json).replace('"X"', deep))

r = lambda *args: run(rooftop, *args)
model = path("model")
nested = "nested deeper than 128 levels"
expect(2, nested, r("run", "--suite", "inference", "--dtype", "fp32", "--shape", f"{model}:prefill:1x8"))
expect(2, nested, r("run", "--suite", "inference", "--dtype", "fp32", "--shape", "tiny:prefill:1x8",
                    "--prompt", "@" + path("prompt.json")))
expect(2, nested, r("gate", "--baseline", results, path("deep-results.json")))
expect(2, nested, r("report", path("deep-results.json"), "--out", path("deep.html")))
if os.path.exists(path("deep.html")):
    sys.exit("report wrote a file for a refused input")

device = "is a device or socket"
with open(path("model/config.json"), "w") as f:
    f.write('{"hidden_size": [[1]]}')  # a wrong type is quoted, cut short
expect(2, "field 'hidden_size' is [[1]]", r("run", "--suite", "inference", "--dtype", "fp32", "--shape", f"{model}:prefill:1x8"))
expect(2, device, r("run", "--suite", "inference", "--dtype", "fp32", "--shape", "tiny:prefill:1x8", "--prompt", "@/dev/zero"))
expect(2, device, r("run", "--suite", "inference", "--dtype", "fp32", "--shape", "/dev/zero:prefill:1x8"))
expect(2, device, r("gate", "--baseline", results, "/dev/zero"))
expect(2, device, r("report", "/dev/zero", "--out", path("zero.html")))
expect(2, device, r("run", "--suite", "inference", "--dtype", "fp32", "--shape", "tiny:serve:40x2:file=/dev/zero"))

# Sizes: a rate whose schedule never ends, sums past int64 (each refused at planning, in well
# under the test's timeout: a hang here is a failure).
inference = lambda shape: r("run", "--suite", "inference", "--dtype", "fp32", "--repetitions", "1", "--shape", shape)
expect(2, "past the day a serve point may span", inference("tiny:serve:1e-300x2:fixed=16/6:window=0"))
expect(2, "more than 2^63 positions", inference("tiny:serve:40x2:fixed=4611686018427387904/4611686018427387904:window=0"))
expect(2, "more than 2^63 positions", inference("tiny:serve:40x2:fixed=9223372036854775807/1:window=0"))
expect(2, "needs more than 2^63 positions (prompt 1 plus output 9223372036854775807)",
       inference("tiny:generate:1x1x9223372036854775807"))
expect(2, "choose a context of at most", inference("tiny:decode:1x9223372036854775807"))
with open(path("lengths.txt"), "w") as f:
    f.write("9223372036854775807 1\n")
expect(2, "more than 2^63 positions", inference(f"tiny:serve:40x2:window=0:file={path('lengths.txt')}"))
# Products of sizes, in the memory a point needs (a batch of 2^62 times 2 positions wrapped
# to a negative size: a point error, exit 1), and a cache of 2^63-1 positions (wrapped when
# rounded to blocks: silently replaced by the default cache, exit 0).
expect(2, "needs", inference("tiny:prefill:4611686018427387904x2"))
expect(2, "needs", inference("tiny:serve:40x2:fixed=16/6:window=0:cache=9223372036854775807"))
expect(2, "needs", inference("tiny:serve:40x2:fixed=16/6:window=0:batch=4611686018427387904:budget=4611686018427387904"))
# --sweep-rate may serve the rate halved 5 times: that schedule must fit the day too (it
# passed planning and failed the point hours in).
expect(2, "--sweep-rate may serve tiny:serve at 6.25e-06 requests/s", r("run", "--suite", "inference", "--dtype", "fp32",
       "--shape", "tiny:serve:0.0002x2:fixed=16/6:window=0", "--sweep-rate"))

# A wrong value is quoted cut short however large: a 100,000-element array in a config field
# and as a results file's schema (quoted whole before: a message of 200 KB).
with open(path("model/config.json"), "w") as f:
    f.write('{"hidden_size": [' + ",".join(["0"] * 100000) + "]}")
got = r("run", "--suite", "inference", "--dtype", "fp32", "--shape", f"{model}:prefill:1x8")
expect(2, "field 'hidden_size' is [0,0,0", got)
run_json["schema"] = list(range(100000))
with open(path("wide-schema.json"), "w") as f:
    json.dump(run_json, f)
got_schema = r("report", path("wide-schema.json"), "--out", path("wide.html"))
expect(2, "results schema [0,1,2,3", got_schema)
for said in (got[1], got_schema[1]):
    if len(said) > 2000:
        sys.exit(f"a quoted value was not cut short: {len(said)} characters said")
print("every hostile input refused with exit 2")
