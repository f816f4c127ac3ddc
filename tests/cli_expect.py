#!/usr/bin/env python3
"""Runs a command and checks its exit code and that its output matches a pattern.

usage: cli_expect.py EXIT_CODE[,EXIT_CODE...] REGEX -- COMMAND [ARGS...]
"""
import re
import subprocess
import sys

sep = sys.argv.index("--")
codes, pattern, command = [int(c) for c in sys.argv[1].split(",")], sys.argv[2], sys.argv[sep + 1:]
proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
output = proc.stdout + proc.stderr
ok = proc.returncode in codes and re.search(pattern, output, re.S)
if not ok:
    print(f"command: {' '.join(command)}\nexpected exit {sys.argv[1]} and /{pattern}/; got exit {proc.returncode}:\n{output}")
    sys.exit(1)
print(f"exit {proc.returncode} and /{pattern}/ as expected")
