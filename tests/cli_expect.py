#!/usr/bin/env python3
"""Runs a command and checks its exit code and that its output matches a pattern.

usage: cli_expect.py EXIT_CODE REGEX -- COMMAND [ARGS...]
"""
import re
import subprocess
import sys

sep = sys.argv.index("--")
code, pattern, command = int(sys.argv[1]), sys.argv[2], sys.argv[sep + 1:]
proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
output = proc.stdout + proc.stderr
ok = proc.returncode == code and re.search(pattern, output, re.S)
if not ok:
    print(f"command: {' '.join(command)}\nexpected exit {code} and /{pattern}/; got exit {proc.returncode}:\n{output}")
    sys.exit(1)
print(f"exit {code} and /{pattern}/ as expected")
