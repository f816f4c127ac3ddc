#!/usr/bin/env python3
"""Every relative link in README.md and docs/*.md names a file of the repository: none
points outside it (a clone has nothing there) and none is broken. Web links are not
followed (no network in tests).

usage: docs_links.py SOURCE_DIR
"""
import pathlib
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")


def main():
    source = pathlib.Path(sys.argv[1]).resolve()
    documents = [source / "README.md", *sorted((source / "docs").glob("*.md"))]
    problems, checked = [], 0
    for document in documents:
        for number, line in enumerate(document.read_text().splitlines(), 1):
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue  # a web link, or an anchor in the same page
                path = (document.parent / target.split("#", 1)[0]).resolve()
                checked += 1
                where = f"{document.relative_to(source)}:{number}: ({target})"
                if source not in path.parents and path != source:
                    problems.append(f"{where} points outside the repository")
                elif not path.exists():
                    problems.append(f"{where} names no file of the repository")
    if problems:
        sys.exit("links to fix in the docs:\n  " + "\n  ".join(problems))
    print(f"{checked} links in {len(documents)} documents point inside the repository, at files that exist")


if __name__ == "__main__":
    main()
