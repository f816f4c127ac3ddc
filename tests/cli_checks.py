"""What the CLI tests written in Python share: run rooftop, check an exit code and a text."""
import os
import shutil
import subprocess
import sys
import time


def run(rooftop, *args):
    """(exit code, stdout + stderr) of `rooftop ARGS`."""
    p = subprocess.run([rooftop, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def expect(code, text, got, absent=None):
    """Exits the test with what went wrong unless `got` has exit `code` and contains `text`
    (and not `absent`, where given)."""
    if got[0] != code or text not in got[1]:
        sys.exit(f"expected exit {code} and '{text}', got exit {got[0]}:\n{got[1]}")
    if absent and absent in got[1]:
        sys.exit(f"'{absent}' should not be said:\n{got[1]}")


def fresh_dir(path):
    """The test's work folder, emptied: a second run starts from nothing."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def runner(rooftop):
    """run(*args) for one rooftop binary."""
    return lambda *args: run(rooftop, *args)


def fail(why):
    """Ends the test with what went wrong."""
    sys.exit(f"FAIL: {why}")


def wait_for(condition, seconds, what):
    """Polls `condition` until it holds; fails the test after `seconds`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.05)
    fail(f"timed out waiting for {what}")


def case_setup(argv):
    """(rooftop, source dir, the case's fresh work dir, case) of a robustness script called as
    `SCRIPT ROOFTOP SOURCE_DIR WORK_DIR CASE`, with a home of its own and no baseline store
    from the caller's environment."""
    rooftop, source, work, case = argv[1:5]
    work = fresh_dir(os.path.join(work, case))
    os.environ["ROOFTOP_HOME"] = os.path.join(work, "home")
    os.environ.pop("ROOFTOP_BASELINES", None)
    return rooftop, source, work, case
