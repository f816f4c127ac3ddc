#!/usr/bin/env python3
"""The libraries include one another in one direction only: harness (the core) includes
none of the others; devices and reports include the harness; suites the harness and
devices; api (benchmarks declared by other projects) the harness and devices; only cli
(the command line) includes everything. The public headers (api/rooftop/, included as
"rooftop/...") include only each other and the standard library: a downstream project
has nothing else. Below every layer sits one public header, rooftop/types.hpp (Work, Tier:
one definition for the API and the harness); a library under api that includes any other
public header ("rooftop/rooftop.hpp") reaches up into the API. An include against that
order is a circle in the making: this check names the file and line."""
import pathlib
import re
import sys

ALLOWED = {
    "harness": {"harness"},
    "devices": {"harness", "devices"},
    "reports": {"harness", "reports"},
    "suites": {"harness", "devices", "suites"},
    "api": {"harness", "devices", "api"},
    "cli": {"harness", "devices", "reports", "suites", "api", "cli"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')
PUBLIC = re.compile(r'^\s*#\s*include\s+"rooftop/([^"]+)"')
BASE = {"types.hpp"}  # the public header every layer may include


def main(root: pathlib.Path) -> int:
    wrong = []
    for layer, allowed in ALLOWED.items():
        for path in sorted((root / layer).rglob("*")):
            if path.suffix not in {".hpp", ".cpp", ".cu", ".cuh", ".h"}:
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if m and m.group(1) in ALLOWED and m.group(1) not in allowed:
                    wrong.append(f"{path.relative_to(root)}:{number}: {layer} includes {m.group(1)}: {line.strip()}")
                p = PUBLIC.match(line)
                if p and layer not in {"api", "cli"} and p.group(1) not in BASE:
                    wrong.append(f"{path.relative_to(root)}:{number}: {layer} includes the public API's "
                                 f"rooftop/{p.group(1)} (only rooftop/types.hpp sits below it): {line.strip()}")
    for path in sorted((root / "api" / "rooftop").glob("*.hpp")):
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = re.match(r'^\s*#\s*include\s+"([^"]+)"', line)
            if m and not m.group(1).startswith("rooftop/"):
                wrong.append(f"{path.relative_to(root)}:{number}: a public header includes {m.group(1)}: {line.strip()}")
    for w in wrong:
        print(w)
    if wrong:
        print(f"{len(wrong)} include(s) against the layers (harness <- devices, reports <- suites <- cli)")
        return 1
    print("layers: rooftop/types.hpp <- harness <- devices, reports <- suites, api <- cli; public headers "
          "self-contained; no include against that order")
    return 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
