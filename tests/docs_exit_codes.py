#!/usr/bin/env python3
"""docs/cli.md's exit-code table and `rooftop --help`'s "Exit codes:" list say the same: the
same codes, and for each code the same commands named (the `gate/compare/ab:` before a
clause). A code, or a command's use of one, added to one place and not the other fails here.

usage: docs_exit_codes.py ROOFTOP DOCS_CLI_MD
"""
import re
import subprocess
import sys

# The names a clause can be scoped to: the commands, and the one suite with a code of its own.
SCOPES = {"list", "info", "characterize", "run", "baseline", "gate", "compare", "ab", "gate-calibrate",
          "report", "history", "tune", "perf-test", "collectives"}


def scopes(text):
    """The commands that `text` scopes its clauses to: "gate/compare/ab: ..." names three;
    "history check: ..." names history; "usage or input error: ..." names none."""
    named = set()
    for group in re.findall(r"([a-z][a-z-]*(?: check| update| add)?(?:(?:/|, )[a-z][a-z-]*(?: check| update| add)?)*):", text):
        for name in re.split(r"/|, ", group):
            name = name.split(" ")[0]
            if name in SCOPES:
                named.add(name)
    return named


def help_codes(help_text):
    """{code: text} from the help's "Exit codes:" list (continuation lines joined)."""
    section = help_text.split("Exit codes:\n", 1)[1]
    codes, current = {}, None
    for line in section.splitlines():
        entry = re.match(r"^  (\d+(?:, \d+)*)\s+(.*)$", line)
        if entry:
            current = entry.group(1)
            codes[current] = entry.group(2)
        elif line.startswith("      ") and current:
            codes[current] += " " + line.strip()
        else:
            break
    return codes


def doc_codes(markdown):
    """{code: text} from the table under docs/cli.md's "## Exit codes" heading."""
    section = markdown.split("\n## Exit codes", 1)[1].split("\n## ", 1)[0]
    codes = {}
    for row in re.findall(r"^\| *([0-9][0-9, ]*?) *\| *(.*?) *\|$", section, re.M):
        codes[row[0]] = row[1].replace("`", "")
    return codes


def main():
    rooftop, cli_md = sys.argv[1], sys.argv[2]
    help_text = subprocess.run([rooftop, "--help"], capture_output=True, text=True, timeout=60).stdout
    from_help, from_doc = help_codes(help_text), doc_codes(open(cli_md).read())
    problems = []
    if len(from_help) < 8:
        problems.append(f"rooftop --help lists only {sorted(from_help)}: its 'Exit codes:' list did not parse")
    for code in sorted(set(from_help) | set(from_doc)):
        if code not in from_doc:
            problems.append(f"exit {code}: in rooftop --help, missing from {cli_md}'s table")
        elif code not in from_help:
            problems.append(f"exit {code}: in {cli_md}'s table, missing from rooftop --help")
        elif scopes(from_help[code]) != scopes(from_doc[code]):
            problems.append(f"exit {code}: rooftop --help names {sorted(scopes(from_help[code]))}, "
                            f"{cli_md} names {sorted(scopes(from_doc[code]))}")
    if problems:
        sys.exit("the exit codes disagree (cli/run_main.cpp's help and docs/cli.md must say the same):\n  "
                 + "\n  ".join(problems))
    print(f"{len(from_help)} exit codes agree: {', '.join(from_help)}")


if __name__ == "__main__":
    main()
