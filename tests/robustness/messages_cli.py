#!/usr/bin/env python3
"""Issue 52, messages that said the wrong thing; each case fails on 8528c35.

n15 `ab` stopped by Ctrl-C exited 130 under a last verdict line "(exit 6)" (I08, I10); samples
    of 1e308 s read by compare and gate overflowed their sums: "- [-, -]", "-nan%", "slower
    by inf" (G_huge); a tuned tile holding a NUL byte reached the terminal raw (F22); a folder
    given as --prompt @FILE or a lengths file (C11, B16; "is a directory" since c34bacb, kept
    here). Now ab's views say it was interrupted and exit 130, such samples are refused when
    read (exit 2, the file and sample named), the tile is shown with \\x00.

usage: messages_cli.py ROOFTOP SOURCE_DIR WORK_DIR CASE
"""
import json
import os
import re
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cli_checks  # noqa: E402
from cli_checks import expect, fail, wait_for  # noqa: E402

rooftop, source, work, case = cli_checks.case_setup(sys.argv)
home = os.environ["ROOFTOP_HOME"]
kept = os.path.join(source, "docs", "results", "cpu-quick-gemm.json")
run = cli_checks.runner(rooftop)


def interrupted_ab():
    """I08: SIGINT to ab alone while B's run of pair 2 waits on a FIFO nobody opens."""
    d = os.path.join(work, "ab")
    os.makedirs(d)
    fifo, ready = os.path.join(d, "never-opened"), os.path.join(d, "b-pid")
    os.mkfifo(fifo)
    b = os.path.join(d, "b.sh")
    open(b, "w").write("#!/bin/sh\n"
                       f'case "$*" in *pair002-b.json*) echo $$ > {ready}.part && mv {ready}.part {ready}; read x < {fifo};; '
                       "esac\n"
                       f'exec {rooftop} "$@"\n')
    os.chmod(b, 0o755)
    md, js = os.path.join(work, "ab.md"), os.path.join(work, "ab.json")
    with open(os.path.join(d, "ab.out"), "w") as out_file, open(os.path.join(d, "ab.err"), "w") as err_file:
        ab = subprocess.Popen([rooftop, "ab", "--a", rooftop, "--b", b, "--dir", d, "--blocks", "4", "--markdown", md,
                               "--json", js, "--", "--suite", "gemm", "--shape", "8x8x8", "--dtype", "fp32",
                               "--repetitions", "2", "--min-time", "0.01"],
                              stdout=out_file, stderr=err_file, start_new_session=True)
    wait_for(lambda: os.path.exists(ready) or ab.poll() is not None, 120, "ab's run of B in pair 2")
    if ab.poll() is not None:
        fail(f"ab ended before pair 2: exit {ab.returncode}\n{open(err_file.name).read()}")
    b_pid = int(open(ready).read())
    ab.send_signal(signal.SIGINT)
    try:
        ab.wait(timeout=60)
    finally:
        try:
            os.killpg(os.getpgid(b_pid), signal.SIGKILL)
        except OSError:
            pass
        if ab.poll() is None:
            ab.kill()
    out = open(out_file.name).read()
    # The last verdict line, wrapped: from the last "gate: " to the line of pairs.
    last = " ".join(out[out.rfind("\ngate: ") + 1:].split("\n")[:-2]) if "\ngate: " in out else ""
    if ab.returncode != 130 or "(exit 130)" not in last or "interrupted (Ctrl-C) in pair 2" not in last:
        fail(f"ab after SIGINT: expected exit 130 and a last verdict line saying so, got exit {ab.returncode}:\n{out}")
    if "(exit 6)" in out or "rooftop gate: interrupted" not in open(md).read() or json.load(open(js))["exit_code"] != 130:
        fail(f"ab's table, markdown or JSON still give another exit than 130:\n{out}\n{open(md).read()}")


def n15():
    # C11, B16: a folder as the prompt file or the lengths file.
    folder = os.path.join(work, "dd")
    os.makedirs(folder)
    inference = ("run", "--suite", "inference", "--dtype", "fp32", "--repetitions", "1", "--shape")
    expect(2, "dd: is a directory, not a prompt file", run(*inference, "tiny:prefill:1x8", "--prompt", "@" + folder))
    expect(2, "dd: is a directory, not a lengths file", run(*inference, "tiny:serve:40x2:window=0:file=" + folder))
    # G_huge: every sample 1e308 s.
    huge = json.load(open(kept))
    for r in huge["results"]:
        r["samples"]["seconds_per_iteration"] = [1e308] * len(r["samples"]["seconds_per_iteration"])
    huge_file = os.path.join(work, "huge.json")
    json.dump(huge, open(huge_file, "w"))
    said = "samples.seconds_per_iteration[0]' is 1e+308 s, outside [1e-12, 1e+06] s"
    for got in (run("compare", kept, huge_file), run("gate", huge_file, "--baseline", kept),
                run("report", huge_file, "-o", os.path.join(work, "r.html"))):
        expect(2, said, got, absent="nan")
    # F22: a tuned tile holding a NUL byte and markup.
    code, out = run("info")
    fingerprint = re.search(r"fingerprint: (\S+)", out)
    if code != 0 or not fingerprint:
        fail(f"rooftop info gives no fingerprint: exit {code}\n{out}")
    point = "attention/cpu/fp32/prefill_b1_hq8_hkv2_s96_d64_full_fused"
    tuning = os.path.join(home, "tuning", fingerprint.group(1) + ".json")
    os.makedirs(os.path.dirname(tuning))
    json.dump({"fingerprint": fingerprint.group(1),
               "points": {point: {"tile": "m8\u0000<script>", "tuned_at": "2026-11-24T00:00:00Z"}}}, open(tuning, "w"))
    got = run("run", "--suite", "attention", "--shape", "prefill:1x8x2x96x64", "--repetitions", "2", "--min-time", "0.002",
              "--dtype", "fp32")
    expect(0, "the tuned tile 'm8\\x00<script>' of " + point, got, absent="\u0000")
    # I08, I10: ab interrupted.
    interrupted_ab()


{"n15": n15}[case]()
print(f"messages {case}: ok")
