#!/usr/bin/env python3
"""The perf gate of one suite and backend, for `ctest -L perf`.

With ROOFTOP_REFERENCE (the environment, or the CMake cache variable of that name: the
rooftop binary of a reference build, e.g. main's), it runs `rooftop ab` of that build
against this one on this machine, the smoke tier in alternating pairs of runs, each
benchmark decided as soon as its interval allows (drift cancels; ROOFTOP_AB_BUDGET,
default 10m, or ROOFTOP_AB_BLOCKS): the before-merge check on a machine with no baseline. Otherwise it gates the quick tier against this machine's stored baseline, and
where there is none it skips (exit 3) with the exact commands for either way. A timing FAIL
must repeat in a re-run of the FAILed benchmarks (`gate --confirm`), as in the nightly.
Exit 0 pass, 1 regression, 2 usage.

usage: gate_suite.py ROOFTOP STORE SUITE BACKEND OUT_DIR
"""
import json
import os
import re
import subprocess
import sys

rooftop, store, suite, backend, out = sys.argv[1:6]
os.makedirs(out, exist_ok=True)
reference = os.environ.get("ROOFTOP_REFERENCE", "")
if reference:
    if not (os.path.isfile(reference) and os.access(reference, os.X_OK)):
        print(f"ROOFTOP_REFERENCE={reference}: not an executable rooftop; build the reference's `rooftop` target and "
              "point ROOFTOP_REFERENCE at build/cli/rooftop")
        sys.exit(2)
    limit = ["--budget", os.environ.get("ROOFTOP_AB_BUDGET", "10m")]
    if os.environ.get("ROOFTOP_AB_BLOCKS"):
        limit += ["--blocks", os.environ["ROOFTOP_AB_BLOCKS"]]
    ab = subprocess.run([rooftop, "ab", "--a", reference, "--b", rooftop, *limit,
                         "--dir", os.path.join(out, f"ab-{suite}-{backend}"),
                         "--markdown", os.path.join(out, f"ab-{suite}-{backend}.md"),
                         "--", "--suite", suite, "--backend", backend, "--tier", "smoke", "--repetitions", "3", "--min-time", "0.05"],
                        text=True)
    sys.exit(ab.returncode)
show = subprocess.run([rooftop, "baseline", "show", "--suite", suite, "--backend", backend, "--baselines", store],
                      capture_output=True, text=True)
print(show.stdout + show.stderr)
if show.returncode == 3:
    print("Or, before a merge, compare with a reference build on this machine (no baseline needed):\n"
          "  git worktree add /tmp/rooftop-main main && cmake -S /tmp/rooftop-main -B /tmp/rooftop-main/build -G Ninja "
          "-DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/rooftop-main/build --target rooftop\n"
          "  ROOFTOP_REFERENCE=/tmp/rooftop-main/build/cli/rooftop ctest -L perf")
if show.returncode in (3, 4):
    sys.exit(3)  # CTest: SKIP (no baseline here, or the backend's device is not here)
if show.returncode != 0:
    sys.exit(show.returncode)
results = os.path.join(out, f"gate-{suite}-{backend}.json")
# Google Benchmark interleaves the repetitions of its kernel loop; suites with a loop of their
# own (collectives, inference) refuse the flag.
listing = subprocess.run([rooftop, "list"], capture_output=True, text=True).stdout.split("\n")
measured = next((listing[i + 1] for i, line in enumerate(listing[:-1]) if line.split()[:1] == [suite]), "")
interleave = ["--benchmark_enable_random_interleaving=true"] if "measured: kernel loop" in measured else []
run = subprocess.run([rooftop, "run", "--suite", suite, "--backend", backend, "--tier", "quick", *interleave,
                      "--out", results], text=True)
if run.returncode not in (0, 1):
    sys.exit(run.returncode)
verdicts = os.path.join(out, f"gate-{suite}-{backend}-verdicts.json")


def gate_run(*confirm):
    return subprocess.run([rooftop, "gate", "--baseline", store, results, *confirm,
                           "--markdown", os.path.join(out, f"gate-{suite}-{backend}.md"),
                           "--junit", os.path.join(out, f"gate-{suite}-{backend}.xml"), "--json", verdicts],
                          text=True).returncode


gate = gate_run()
# A timing FAIL must repeat in a re-run of the FAILed benchmarks, as in the nightly
# (docs/gate.md, "Confirmed by a re-run"): one run's outlier on a shared machine (a loaded
# VM slows one benchmark by 1.4-2.4x in one run of ten) is not a regression.
failed = [c["name"] for c in json.load(open(verdicts))["comparisons"]
          if c["verdict"] == "FAIL" and not c.get("broken")] if gate == 1 and os.path.exists(verdicts) else []
if failed and run.returncode == 0:
    rerun = os.path.join(out, f"gate-{suite}-{backend}-rerun.json")
    pattern = "^(" + "|".join(re.escape(n) for n in failed) + ")$"
    again = subprocess.run([rooftop, "run", "--suite", suite, "--backend", backend, "--tier", "quick", *interleave,
                            "--filter", pattern, "--out", rerun], text=True)
    if again.returncode in (0, 1) and os.path.exists(rerun):
        gate = gate_run("--confirm", rerun)
sys.exit(1 if run.returncode == 1 else gate)
