#!/usr/bin/env bash
# Regenerates the gate's calibration table in docs/gate.md (between its calibration markers)
# from the simulation in tests/calibration, which drives the real gate code.
#   ci/gate-calibration-table.sh [BUILD_DIR] [GATES]     (default build, 1000 gates a cell)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
gates=${2:-1000}
cmake --build "$build" --target rooftop_gate_calibration >/dev/null
table=$(mktemp)
trap 'rm -f "$table"' EXIT
"$build/tests/rooftop_gate_calibration" "$gates" > "$table"
python3 - "$root/docs/gate.md" "$table" <<'PY'
import os, sys
doc, table = sys.argv[1], open(sys.argv[2]).read()
text = open(doc).read()
begin, end = "<!-- calibration:begin -->\n", "<!-- calibration:end -->"
if begin not in text or end not in text:
    sys.exit(f"{doc}: no calibration markers ({begin.strip()} ... {end})")
head, rest = text.split(begin, 1)
new = head + begin + table + rest[rest.index(end):]
tmp = doc + ".tmp"
open(tmp, "w").write(new)
os.replace(tmp, doc)
print(f"{doc}: calibration table regenerated")
PY
