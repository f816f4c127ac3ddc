#!/usr/bin/env python3
"""`ctest -L perf`'s gate (tests/gate_suite.py) confirms a timing FAIL by a re-run, as the nightly
does: a stand-in rooftop answers the measuring commands (run, gate) and records them.
  - the re-run does not repeat the FAIL: exit 0, the re-run ran only the FAILed benchmark;
  - the re-run repeats it: exit 1;
  - no FAIL: no re-run.

usage: gate_suite_confirm.py SOURCE_DIR OUT_DIR
"""
import json
import os
import shutil
import stat
import subprocess
import sys

source, out = sys.argv[1:3]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
log = os.path.join(out, "calls.log")
fake = os.path.join(out, "rooftop")
with open(fake, "w") as f:
    f.write(f"""#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
open({log!r}, "a").write(" ".join(args) + "\\n")
def value(flag):
    return args[args.index(flag) + 1] if flag in args else None
if args[:2] == ["baseline", "show"]:
    sys.exit(0)
if args[:1] == ["list"]:
    print("gemm\\n  measured: kernel loop")
    sys.exit(0)
if args[:1] == ["run"]:
    json.dump({{"results": []}}, open(value("--out"), "w"))
    sys.exit(0)
if args[:1] == ["gate"]:
    mode = os.environ["STAND_IN_MODE"]
    failing = mode == "fail" or (mode == "repeat") or (mode == "once" and "--confirm" not in args)
    verdict = "FAIL" if failing else "PASS"
    comparisons = [{{"name": "gemm/cpu/fp32/m64_n64_k64", "verdict": verdict}}, {{"name": "gemm/cpu/fp32/m1_n1_k1", "verdict": "PASS"}}]
    json.dump({{"comparisons": comparisons}}, open(value("--json"), "w"))
    sys.exit(1 if failing else 0)
sys.exit(2)
""")
os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
failures = []


def gate_suite(mode):
    if os.path.exists(log):
        os.remove(log)
    code = subprocess.run([sys.executable, os.path.join(source, "tests", "gate_suite.py"), fake, os.path.join(out, "store"),
                           "gemm", "cpu", os.path.join(out, mode)], env={**os.environ, "STAND_IN_MODE": mode,
                                                                         "ROOFTOP_REFERENCE": ""},
                          capture_output=True, text=True).returncode
    return code, open(log).read().splitlines()


code, calls = gate_suite("once")
reruns = [c for c in calls if c.startswith("run ") and "--filter" in c]
print(f"a FAIL the re-run does not repeat: exit {code}; re-runs: {reruns}")
if code != 0 or len(reruns) != 1 or "^(gemm/cpu/fp32/m64_n64_k64)$" not in reruns[0]:
    failures.append(f"unrepeated FAIL: exit {code}, re-runs {reruns}")
if not any(c.startswith("gate ") and "--confirm" in c for c in calls):
    failures.append("no gate --confirm after the re-run")
code, calls = gate_suite("repeat")
print(f"a FAIL the re-run repeats: exit {code}")
if code != 1:
    failures.append(f"repeated FAIL: exit {code}")
code, calls = gate_suite("pass")
reruns = [c for c in calls if c.startswith("run ") and "--filter" in c]
print(f"no FAIL: exit {code}, re-runs {len(reruns)}")
if code != 0 or reruns:
    failures.append(f"no FAIL: exit {code}, re-runs {reruns}")
for f in failures:
    print("FAILED:", f)
sys.exit(1 if failures else 0)
