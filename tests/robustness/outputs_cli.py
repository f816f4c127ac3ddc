#!/usr/bin/env python3
"""Issue 35, the outputs group: what a command writes, checked before anything is measured;
an output never destroys an input or another output; a pipe gets one document; a killed
writer's temporary file is cleaned; `ab` says what a broken build printed; Ctrl-C ends
`tune` and `ab` with 130; SIGTERM or SIGHUP end `ab` and the run it started, 128 + the signal.

usage: outputs_cli.py CASE ROOFTOP WORK_DIR RESULTS_JSON
  CASE: unwritable | same_file | fifo | stale_temp | ab_broken_build | interrupt | everyday
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cli_checks  # noqa: E402
from cli_checks import expect, wait_for  # noqa: E402

case, rooftop, work, results = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
os.environ["ROOFTOP_HOME"] = os.path.join(work, "home")

GEMM = ["run", "--suite", "gemm", "--shape", "8x8x8", "--dtype", "fp32", "--repetitions", "2", "--min-time", "0.01"]
INFERENCE = ["run", "--suite", "inference", "--shape", "tiny:decode:1x16", "--dtype", "fp32", "--repetitions", "1",
             "--stages"]


def run(*args):
    return cli_checks.run(rooftop, *args)


def run_split(*args):
    p = subprocess.run([rooftop, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def refused_before_measuring(flag, path, why, args):
    """Exit 2 naming the path, and nothing measured: the results table (stdout) is empty."""
    code, out, err = run_split(*args)
    if code != 2 or f"cannot write {flag} {path}" not in err or why not in err or out.strip():
        sys.exit(f"{' '.join(args)}: expected exit 2, 'cannot write {flag} {path}' and '{why}' before measuring; got "
                 f"exit {code}\nstdout:\n{out}\nstderr:\n{err}")


def unwritable():
    folder = os.path.join(work, "a-folder")
    os.makedirs(folder)
    refused_before_measuring("--trace", "/dev/full", "every write to it fails", INFERENCE + ["--trace", "/dev/full"])
    refused_before_measuring("--trace", folder, "is a directory", INFERENCE + ["--trace", folder])
    refused_before_measuring("--out", "/dev/full", "every write to it fails", GEMM + ["--out", "/dev/full"])
    refused_before_measuring("--benchmark_out", folder, "is a directory", GEMM + [f"--benchmark_out={folder}"])
    # A file where a folder should be.
    blocker = os.path.join(work, "blocker")
    open(blocker, "w").close()
    refused_before_measuring("--trace", blocker + "/t.json", "Not a directory", INFERENCE + ["--trace", blocker + "/t.json"])
    # A read-only place: a folder without write permission (root writes there anyway), else /proc.
    readonly = os.path.join(work, "read-only")
    os.makedirs(readonly)
    os.chmod(readonly, 0o555)
    target = os.path.join(readonly, "t.json") if os.geteuid() != 0 else "/proc/rooftop-trace.json"
    if os.geteuid() != 0 or os.path.isdir("/proc/self"):
        refused_before_measuring("--trace", target, "cannot create a file in", INFERENCE + ["--trace", target])
    # ab: its verdict files are written after every pair; a bad one is said before the first.
    code, out, err = run_split("ab", "--a", rooftop, "--b", rooftop, "--dir", os.path.join(work, "ab"), "--junit", folder,
                               "--", *GEMM[1:])
    if code != 2 or f"cannot write --junit {folder}" not in err or os.path.exists(os.path.join(work, "ab", "pair001-a.json")):
        sys.exit(f"ab --junit FOLDER: expected exit 2 before any run; got exit {code}\n{out}\n{err}")
    expect(2, f"cannot write -o {folder}", run("report", results, "-o", folder))
    refused_before_measuring("--out", "/dev/full", "every write to it fails", ["characterize", "--quick", "--out", "/dev/full"])


def same_file():
    copy = os.path.join(work, "r.json")
    shutil.copy(results, copy)
    before = open(copy).read()
    out = os.path.join(work, "out.json")
    expect(2, "are the same file", run(*INFERENCE, "--out", out, "--trace", out))
    expect(2, "are the same file", run(*INFERENCE, "--out", out, "--trace", os.path.join(work, ".", "out.json")))
    expect(2, "is the same file as --profile", run(*GEMM, "--out", copy, "--profile", copy))
    expect(2, "is the same file as the results file", run("report", copy, "-o", copy))
    expect(2, "are the same file", run("report", copy, "-o", out, "--markdown", out))
    expect(2, "is the same file as B", run("compare", results, copy, "--json", copy))
    expect(2, "is the same file as --baseline", run("gate", results, "--baseline", copy, "--markdown", copy))
    os.symlink(copy, os.path.join(work, "link.json"))
    expect(2, "is the same file as the results file", run("report", copy, "-o", os.path.join(work, "link.json")))
    if open(copy).read() != before:
        sys.exit("an input was overwritten")
    # Two outputs to /dev/null are two writes, not one file overwritten.
    expect(0, "", run("compare", results, results, "--markdown", "/dev/null", "--json", "/dev/null"))
    # ...and so are two to /dev/stdout where it is a pipe (as here: run captures it). (Not refused
    # before either with libstdc++, whose equivalent() fails on two pipes; libc++ compares them.)
    got = run("compare", results, results, "--markdown", "/dev/stdout", "--json", "/dev/stdout")
    expect(0, "| benchmark", got)
    expect(0, '"comparisons"', got)


def read_fifo(path, into):
    with open(path) as f:  # one reader, one open: it must get one whole document
        into.append(f.read())


def fifo():
    for label, args, flag in (("--out", GEMM[:4] + ["8x8x8,16x16x16"] + GEMM[5:], "--out"),
                              ("--trace", INFERENCE[:4] + ["tiny:decode:1x16,tiny:prefill:1x16"] + INFERENCE[5:], "--trace")):
        pipe = os.path.join(work, f"pipe{label}")
        os.mkfifo(pipe)
        got = []
        reader = threading.Thread(target=read_fifo, args=(pipe, got), daemon=True)
        reader.start()
        try:
            p = subprocess.run([rooftop, *args, flag, pipe], capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            sys.exit(f"{flag} to a FIFO with one reader: rooftop blocked (rewrote it after a point)")
        reader.join(10)
        if p.returncode != 0 or len(got) != 1:
            sys.exit(f"{flag} FIFO: exit {p.returncode}, {len(got)} reads\n{p.stderr}")
        doc = json.loads(got[0])  # one document, whole
        if flag == "--out" and (len(doc["results"]) != 2 or doc["complete"] is not True):
            sys.exit(f"--out FIFO: expected both points in one complete document, got {got[0][:500]}")
        if flag == "--trace" and len({e["pid"] for e in doc["traceEvents"]}) != 2:
            sys.exit(f"--trace FIFO: expected both points' events in one document, got {got[0][:500]}")


def dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def stale_temp():
    dead, alive = dead_pid(), os.getpid()
    names = {f".out.json.rooftop-tmp.{dead}": False, f".out.json.tmp.{dead}": False,  # a killed writer's: removed
             f".out.json.rooftop-tmp.{alive}": True,  # a live process's: kept
             f".other.json.rooftop-tmp.{dead}": True, ".out.json.rooftop-tmp.x1": True}  # not this file's
    for n in names:
        open(os.path.join(work, n), "w").write("half a document")
    expect(0, "", run("compare", results, results, "--json", os.path.join(work, "out.json")))
    for n, kept in names.items():
        if os.path.exists(os.path.join(work, n)) != kept:
            sys.exit(f"{n}: expected it {'kept' if kept else 'removed'}; the folder holds {sorted(os.listdir(work))}")
    json.load(open(os.path.join(work, "out.json")))


def ab_broken_build():
    for code, words in ((0, "exited 0 but left no results"), (3, "exited 3")):
        script = os.path.join(work, f"b{code}.sh")
        with open(script, "w") as f:
            f.write(f"#!/bin/sh\necho 'first line'\necho 'B-SAYS: linker error, symbol not found' >&2\nexit {code}\n")
        os.chmod(script, 0o755)
        got = run("ab", "--a", rooftop, "--b", script, "--dir", os.path.join(work, f"ab{code}"), "--", *GEMM[1:])
        for text in ("build B", words, "B-SAYS: linker error, symbol not found", "pair001-b.log"):
            expect(2, text, got)


def sigint_caught(pid):
    """Whether the process has a SIGINT handler installed (Linux /proc)."""
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("SigCgt:"):
                return int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)) != 0
    except OSError:
        pass
    return False


def interrupt():
    # tune: SIGINT while a candidate is timed (its handler installed) is exit 130, not 2.
    tune = subprocess.Popen([rooftop, "tune", "--suite", "attention", "--shape", "prefill:1x8x2x96x64", "--dtype", "fp32",
                             "--repetitions", "20", "--min-time", "0.05"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: sigint_caught(tune.pid), 60, "tune to time a candidate")
    tune.send_signal(signal.SIGINT)
    _, err = tune.communicate(timeout=60)
    if tune.returncode != 130 or "interrupted" not in err:
        sys.exit(f"tune after SIGINT: expected exit 130 and 'interrupted', got {tune.returncode}:\n{err}")

    # ab: B's run in pair 2 waits on a FIFO that nobody opens, so a run is in flight for
    # certain when the signal comes; a signal ab does not pass on leaves it there for ever.
    # SIGINT to ab alone, or to its process group as a terminal's Ctrl-C: exit 130 with the
    # verdicts of pair 1. SIGTERM or SIGHUP to ab alone (timeout, a CI cancel, a closed
    # terminal): the run is ended too, and ab exits 128 + the signal.
    for name, sig, whole_group, code in (("int-alone", signal.SIGINT, False, 130), ("int-group", signal.SIGINT, True, 130),
                                         ("term", signal.SIGTERM, False, 143), ("hup", signal.SIGHUP, False, 129)):
        d = os.path.join(work, f"ab-{name}")
        os.makedirs(d)
        fifo, ready = os.path.join(d, "never-opened"), os.path.join(d, "b-pid")
        os.mkfifo(fifo)
        b = os.path.join(d, "b.sh")
        with open(b, "w") as f:
            f.write("#!/bin/sh\n"
                    f'case "$*" in *pair002-b.json*) echo $$ > {ready}.part && mv {ready}.part {ready}; read x < {fifo};; esac\n'
                    f'exec {rooftop} "$@"\n')
        os.chmod(b, 0o755)
        # Files, not pipes: a run ab leaves behind would hold a pipe open, and the test with it.
        with open(os.path.join(d, "ab.out"), "w") as out_file, open(os.path.join(d, "ab.err"), "w") as err_file:
            ab = subprocess.Popen([rooftop, "ab", "--a", rooftop, "--b", b, "--dir", d, "--blocks", "4", "--",
                                   "--suite", "gemm", "--shape", "8x8x8", "--dtype", "fp32", "--repetitions", "2",
                                   "--min-time", "0.01"],
                                  stdout=out_file, stderr=err_file, start_new_session=True)
        wait_for(lambda: os.path.exists(ready) or ab.poll() is not None, 120, "ab's run of B in pair 2")
        if ab.poll() is not None:
            sys.exit(f"ab {name}: ended before pair 2: exit {ab.returncode}\n{open(err_file.name).read()}")
        b_pid = int(open(ready).read())
        if whole_group:
            os.killpg(ab.pid, sig)
        else:
            ab.send_signal(sig)
        try:
            ab.wait(timeout=60)
        except subprocess.TimeoutExpired:
            ab.kill()
            ab.wait()
        left = running(b_pid)
        if left:
            os.killpg(os.getpgid(b_pid), signal.SIGKILL)
        out, err = open(out_file.name).read(), open(err_file.name).read()
        said = "1 pair(s) that finished" if sig == signal.SIGINT else f"ended by {signal.Signals(sig).name} (1 pair(s)"
        files = sorted(f for f in os.listdir(d) if f.endswith(".json"))
        if ab.returncode != code or said not in err or left or files != ["pair001-a.json", "pair001-b.json"]:
            sys.exit(f"ab after {signal.Signals(sig).name} ({'its group' if whole_group else 'ab alone'}): expected exit "
                     f"{code}, '{said}', the run in flight ended and pair 1's results alone; got exit {ab.returncode}, "
                     f"run {'still running' if left else 'ended'}, files {files}:\n{out}\n{err}")


def running(pid):
    """Whether the process is there and not a zombie (ended, waiting for its parent to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def everyday():
    """What a black-box pass found after the first fixes: everyday outputs that must work, and
    the holes that were left in the checks."""
    os.chdir(work)
    expect(0, "ok", run(*GEMM, "--out", "r.json"))
    expect(0, "", run("baseline", "update", "r.json", "--baselines", "store"))
    fingerprint = os.listdir("store")[0]
    inside = os.path.join("store", fingerprint, "gemm.json")
    before = open(inside).read()
    # An output inside a baseline store that the command reads whole (--baseline a folder).
    expect(2, "is inside --baseline store", run("gate", "--baseline", "store", "r.json", "--markdown", inside))
    if open(inside).read() != before:
        sys.exit("gate wrote over the stored baseline")
    expect(6, "", run("gate", "--baseline", "store", "r.json", "--markdown", "gate.md"))  # 2 repetitions: nothing decided
    # A path that names a folder: refused, nothing made.
    for path in ("sub/", "newd/."):
        expect(2, "names a folder, not a file", run(*GEMM, "--out", path))
        if os.path.exists(path.rstrip("/.") or path):
            sys.exit(f"--out {path} left a folder behind")
    # /dev/stdout redirected to a file: written through the shell's descriptor, appended with >>.
    with open("summary.md", "w") as f:
        f.write("kept line\n")
    with open("summary.md", "a") as f:
        code = subprocess.run([rooftop, "compare", "r.json", "r.json", "--markdown", "/dev/stdout"], stdout=f,
                              stderr=subprocess.DEVNULL, timeout=300).returncode
    text = open("summary.md").read()
    if code != 6 or not text.startswith("kept line\n") or "rooftop gate" not in text:  # 2 repetitions: exit 6
        sys.exit(f"compare --markdown /dev/stdout >> summary.md: exit {code}, the file:\n{text}")
    # A name near the file system's limit (the temporary's name is cut, not the target's).
    long_name = "c" * 240 + ".json"
    expect(0, "ok", run(*GEMM, "--out", long_name))
    if not os.path.isfile(long_name):
        sys.exit("the 245-character --out was not written")
    # Google Benchmark's file and the trace into folders that do not exist yet: made, as --out's are.
    expect(0, "ok", run(*GEMM, "--benchmark_out=gb/new/gb.json", "--out", "r2.json"))
    expect(0, "ok", run(*INFERENCE, "--trace", "tr/new/t.json", "--out", "r3.json"))
    for path in ("gb/new/gb.json", "tr/new/t.json"):
        json.load(open(path))


{"unwritable": unwritable, "same_file": same_file, "fifo": fifo, "stale_temp": stale_temp,
 "ab_broken_build": ab_broken_build, "interrupt": interrupt, "everyday": everyday}[case]()
print(f"{case}: as documented")
