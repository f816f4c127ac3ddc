"""What the CLI tests written in Python share: run rooftop, check an exit code and a text."""
import os
import shutil
import subprocess
import sys


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
