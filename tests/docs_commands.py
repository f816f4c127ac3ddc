#!/usr/bin/env python3
"""Every `rooftop ...` command that README.md and docs/*.md show in a fenced shell block is
parsed by the CLI itself (`rooftop --parse-only ...`, which also plans a run: its suites,
dtypes, tier, shapes and models): a renamed command or flag, a value a flag refuses, or a
suite, shape or model that does not exist fails this test instead of a reader.

usage: docs_commands.py ROOFTOP SOURCE_DIR WORK_DIR

Input files a command names (`r.json`) are made empty in WORK_DIR when the source tree has
no such file, so that flags which want an existing file parse; nothing is run, so their
contents do not matter.
"""
import os
import pathlib
import re
import shlex
import subprocess
import sys

from cli_checks import fresh_dir

SHELL_LANGUAGES = {"", "sh", "bash", "shell", "console"}
FILE_SUFFIXES = (".json", ".sqlite", ".txt", ".html", ".md", ".xml")


def fenced_shell_lines(text):
    """(line number, line) of every line inside a fenced block with no language or a shell one."""
    language = None  # None: outside a block
    for number, line in enumerate(text.splitlines(), 1):
        fence = re.match(r"^\s*```(\S*)\s*$", line)
        if fence:
            language = fence.group(1) if language is None else None
            continue
        if language is not None and language in SHELL_LANGUAGES:
            yield number, line


def commands(text):
    """(line number, arguments after `rooftop`) of each rooftop invocation in the shell blocks."""
    pending, start = "", 0
    for number, line in fenced_shell_lines(text):
        line = re.sub(r"^\s*\$ ", "", line)
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        whole, pending = pending + line, ""
        try:
            lexer = shlex.shlex(whole, posix=True, punctuation_chars=";&|")
            lexer.whitespace_split = True
            lexer.commenters = "#"
            tokens = list(lexer)
        except ValueError:
            continue  # not shell (an output sample)
        segment = []
        for token in tokens + [";"]:
            if token and set(token) <= set(";&|"):
                args = rooftop_arguments(segment)
                if args is not None:
                    yield start, args
                segment = []
            else:
                segment.append(token)


def rooftop_arguments(tokens):
    """The arguments of `rooftop` in one simple command (after VAR=..., mpirun -np N, a path to
    the binary), or None when the command is not rooftop's."""
    for i, token in enumerate(tokens):
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", token):
            continue  # VAR=value before the command
        if os.path.basename(token) == "rooftop":
            return tokens[i + 1:]
        if token not in ("mpirun", "srun", "sudo", "env", "-np", "-n") and not token.isdigit():
            return None
    return None


def with_inputs(args, source, work):
    """`args` with each file name pointed at the source tree's file, or at an empty one in `work`."""
    out = []
    for arg in args:
        flag, eq, value = arg.partition("=") if arg.startswith("--") and "=" in arg else ("", "", arg)
        if value.endswith(FILE_SUFFIXES) and ":" not in value and not value.startswith("/dev/"):
            in_source = source / value
            if in_source.exists():
                value = str(in_source)
            else:
                placeholder = work / value.lstrip("/")
                placeholder.parent.mkdir(parents=True, exist_ok=True)
                placeholder.touch()
                value = str(placeholder)
        out.append(flag + eq + value)
    return out


def main():
    rooftop, source, work = os.path.abspath(sys.argv[1]), pathlib.Path(sys.argv[2]), pathlib.Path(fresh_dir(sys.argv[3]))
    documents = [source / "README.md", *sorted((source / "docs").glob("*.md"))]
    checked, failures = 0, []
    for document in documents:
        for line, args in commands(document.read_text()):
            if not args or any(a in ("...", "COMMAND") or a.startswith("<") or "[" in a or "$(" in a for a in args):
                continue  # a pattern ([optional] parts, a shell substitution), not a command
            if document.name == "contributing.md" and "rmsnorm" in args:
                continue  # the worked example of adding a suite: not one yet
            args = args[1:] if args[0] == "--parse-only" else args
            argv = [rooftop, "--parse-only", *with_inputs(args, source, work)]
            # From the source tree, as the docs' commands are given (a model's config at
            # tests/data/hf/...); nothing runs, so nothing is written there.
            p = subprocess.run(argv, capture_output=True, text=True, cwd=source, timeout=60)
            checked += 1
            if p.returncode != 0:
                where = f"{document.relative_to(source)}:{line}"
                failures.append(f"{where}: rooftop {shlex.join(args)}\n  exit {p.returncode}: "
                                f"{(p.stdout + p.stderr).strip()}")
    print(f"{checked} rooftop commands from {len(documents)} documents parsed")
    if failures:
        print("these commands in the docs do not parse (fix the doc, or the CLI if it lost a flag):")
        print("\n".join(failures))
        sys.exit(1)
    if checked < 20:
        sys.exit(f"only {checked} commands found: the extraction from fenced blocks is broken")


if __name__ == "__main__":
    main()
