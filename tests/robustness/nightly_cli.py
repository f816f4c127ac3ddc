#!/usr/bin/env python3
"""Issue 52, ci/nightly.sh's exit codes; the case fails on 8528c35.

n11 the nightly's usage and environment problems gave codes its header does not list, or
    one that hid a failure: a missing ROOFTOP_NIGHTLY_BIN 127 (L02); a bad tier found only
    after characterize had run (L04); an unwritable GITHUB_STEP_SUMMARY 1, "a regression",
    after the gate passed (L06); a history that refused the night 0, the night neither kept
    nor checked (L07); HOME unset 1 (L08). Now each is exit 2, the first four found before
    anything is measured, and a step summary that fails later is a warning.

A stand-in rooftop plays characterize, run and gate (no timing: a kept results file, the gate's
exit 0 and its markdown); `--parse-only` and `history` are the real rooftop's.

usage: nightly_cli.py ROOFTOP SOURCE_DIR WORK_DIR CASE
"""
import os
import sqlite3
import stat
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cli_checks  # noqa: E402

rooftop, source, work, case = sys.argv[1:5]
work = cli_checks.fresh_dir(os.path.join(work, case))
kept = os.path.join(source, "docs", "results", "cpu-quick-gemm.json")

STAND_IN = r"""#!/usr/bin/env bash
echo "$*" >> "$FAKE_LOG"
out="" markdown=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --out) out=${args[i+1]} ;;
    --markdown) markdown=${args[i+1]} ;;
  esac
done
case $1 in
  --parse-only|history) exec "$REAL_ROOFTOP" "$@" ;;
  run) cp "$KEPT_RESULTS" "$out" ;;
  gate)
    echo "### rooftop gate: no regression" > "$markdown"
    # The step summary turned into a folder after the preflight: its write fails later.
    if [ "${FAKE_BREAK_SUMMARY:-0}" = 1 ]; then rm -f "$GITHUB_STEP_SUMMARY"; mkdir "$GITHUB_STEP_SUMMARY"; fi ;;
esac
exit 0
"""


def fail(why, result=None):
    detail = f"\nexit {result[0]}; calls:\n{result[1]}\noutput:\n{result[2]}" if result else ""
    sys.exit(f"FAIL: {why}{detail}")


def nightly(name, unset=(), **env):
    """(exit code, the stand-in's calls, output) of `ci/nightly.sh nightly` in a folder of its own."""
    folder = os.path.join(work, name)
    os.makedirs(folder)
    log = os.path.join(folder, "calls.log")
    open(log, "w").close()
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("ROOFTOP_", "FAKE_", "GITHUB_", "XDG_"))}
    environment.update(ROOFTOP_NIGHTLY_BIN=os.path.join(work, "rooftop"), REAL_ROOFTOP=rooftop, KEPT_RESULTS=kept,
                       FAKE_LOG=log, ROOFTOP_NIGHTLY_BACKENDS="cpu", ROOFTOP_NIGHTLY_TIER="smoke",
                       ROOFTOP_HISTORY=os.path.join(folder, "history.sqlite"), ROOFTOP_HOME=os.path.join(folder, "home"))
    environment.update(env)
    for variable in unset:
        environment.pop(variable, None)
    p = subprocess.run(["bash", os.path.join(source, "ci", "nightly.sh"), "nightly", os.path.join(folder, "out")],
                       capture_output=True, text=True, env=environment, timeout=120)
    return p.returncode, open(log).read(), p.stdout + p.stderr


def expect(code, text, result, nothing_measured=False):
    if result[0] != code or text not in result[2]:
        fail(f"expected exit {code} and '{text}'", result)
    if nothing_measured and any(line.startswith(("characterize", "run ")) for line in result[1].splitlines()):
        fail("the nightly measured before refusing", result)


def n11():
    stand_in = os.path.join(work, "rooftop")
    open(stand_in, "w").write(STAND_IN)
    os.chmod(stand_in, os.stat(stand_in).st_mode | stat.S_IEXEC)
    # The control: the night passes, goes into the history and is checked.
    r = nightly("control")
    if r[0] != 0 or "history add" not in r[1] or "history check" not in r[1]:
        fail("the control night should pass (exit 0) and be added to the history and checked", r)
    # L02: no such binary.
    expect(2, "ROOFTOP_NIGHTLY_BIN=/nonexistent/rooftop is not an executable file",
           nightly("l02", ROOFTOP_NIGHTLY_BIN="/nonexistent/rooftop"))
    # L04: a tier rooftop does not know, and a run argument it does not take, before characterize.
    expect(2, "unknown tier 'bogus'", nightly("l04", ROOFTOP_NIGHTLY_TIER="bogus"), nothing_measured=True)
    expect(2, "ROOFTOP_NIGHTLY_RUN_ARGS", nightly("l09", ROOFTOP_NIGHTLY_RUN_ARGS="--no-such-flag"), nothing_measured=True)
    # L06: a step summary that cannot be written: refused first; one that fails later is said.
    expect(2, "GITHUB_STEP_SUMMARY=/nonexistent/dir/summary.md cannot be written",
           nightly("l06", GITHUB_STEP_SUMMARY="/nonexistent/dir/summary.md"), nothing_measured=True)
    r = nightly("l06-later", GITHUB_STEP_SUMMARY=os.path.join(work, "summary.md"), FAKE_BREAK_SUMMARY="1")
    if r[0] != 0 or "was not written to GITHUB_STEP_SUMMARY" not in r[2] or "history check" not in r[1]:
        fail("a step summary that fails after the gate passed: a warning, exit 0, the history kept and checked", r)
    # L07: another application's SQLite as the history, then as the rolling baseline: refused
    # by history add (exit 2), so the night exits 2 and the file is as it was.
    foreign = os.path.join(work, "contacts.sqlite")
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE contacts (name TEXT)")
    before = open(foreign, "rb").read()
    expect(2, "not added to the history", nightly("l07", ROOFTOP_HISTORY=foreign))
    expect(2, "not added to the rolling baseline", nightly("l07-accepted", ROOFTOP_ACCEPTED_HISTORY=foreign))
    if open(foreign, "rb").read() != before:
        fail("the other application's SQLite was changed")
    # L08: HOME unset, no ROOFTOP_HISTORY nor XDG_DATA_HOME.
    expect(2, "HOME is not set", nightly("l08", unset=("HOME", "ROOFTOP_HISTORY")), nothing_measured=True)


{"n11": n11}[case]()
print(f"nightly {case}: ok")
