#!/usr/bin/env bash
# The downstream example (examples/downstream) as a user builds it: rooftop installed into a
# fresh prefix, the example configured out of tree with find_package(rooftop), built, its
# `ctest -L perf` run (SKIP: no baseline for this machine), a run of its smoke tier checked,
# gated against a baseline made from that run (no FAIL), and its report rendered.
#
# usage: downstream_example.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
step() { echo "== downstream: $*"; }

step "cmake --install into $work/prefix"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/include/rooftop/rooftop.hpp"
test -f "$work/prefix/lib/cmake/rooftop/rooftopConfig.cmake"

step "configure and build the example against the installed package"
# As docs/downstream.md writes it: no CMAKE_CUDA_ARCHITECTURES (the example's default must hold).
cmake -S "$src/examples/downstream" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build"
bench=$work/build/rmsnorm_bench
# The program must load the installed library, not the build tree's.
ldd "$bench" | grep -F "$work/prefix/lib/librooftop.so" >/dev/null || { ldd "$bench"; echo "not linked to the installed librooftop"; exit 1; }
"$bench" --version | grep "^rmsnorm_bench (rooftop " >/dev/null
"$bench" list | grep "^  rmsnorm " >/dev/null

step "ctest -L perf without a baseline: SKIP"
export ROOFTOP_HOME=$work/home
(cd "$work/build" && ctest -L perf -R '^rmsnorm$' --output-on-failure) | tee "$work/ctest.log"
grep -q "rmsnorm .*Skipped" "$work/ctest.log" || { echo "the perf test did not SKIP"; exit 1; }
grep -q "no baseline" "$work/build/Testing/Temporary/LastTest.log"

step "a run of the smoke tier: every point checked"
"$bench" run --suite rmsnorm --tier smoke --repetitions 8 --min-time 0.02 --out "$work/smoke.json"
python3 - "$work/smoke.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert r and all(x["status"] == "ok" and x["correctness"]["passed"] for x in r), r
assert all(x["work"]["flops"] > 0 and x["work"]["bytes"] > 0 for x in r)
print(f"{len(r)} points ok: " + ", ".join(x["name"] for x in r))
PY

step "gated against a baseline made from the same run: no FAIL (PASS exit 0, or UNRESOLVED exit 6 where the machine is busy)"
"$bench" baseline update "$work/smoke.json" --baselines "$work/baselines"
set +e
"$bench" gate --baseline "$work/baselines" "$work/smoke.json" > "$work/gate.txt"
rc=$?
set -e
cat "$work/gate.txt"
[ "$rc" = 0 ] || [ "$rc" = 6 ] || { echo "gate exited $rc (0 or 6 expected)"; exit 1; }
grep -E "^0 FAIL, 0 IMPROVED, (1 PASS, 0|0 PASS, 1) UNRESOLVED" "$work/gate.txt" >/dev/null

step "perf-test with the baseline: the tier is run and gated (a verdict, not a SKIP)"
set +e
"$bench" perf-test --suite rmsnorm --tier smoke --baselines "$work/baselines" --out "$work/perf"
rc=$?
set -e
[ "$rc" = 0 ] || [ "$rc" = 1 ] || [ "$rc" = 6 ] || { echo "perf-test exited $rc (0 pass, 1 regression or 6 unresolved expected)"; exit 1; }
test -s "$work/perf/rmsnorm-cpu-gate.md" && test -s "$work/perf/rmsnorm-cpu.json"
if "$bench" list | grep "^  rmsnorm_cuda " >/dev/null && ! nvidia-smi -L >/dev/null 2>&1; then
  step "the CUDA benchmark without a GPU: exit 4, and perf-test SKIPs"
  set +e
  "$bench" run --suite rmsnorm_cuda --backend cuda --tier smoke --out "$work/cuda.json"; rc=$?
  "$bench" perf-test --suite rmsnorm_cuda --backend cuda --baselines "$work/baselines" --out "$work/perf"; skip=$?
  set -e
  [ "$rc" = 4 ] && [ "$skip" = 3 ] || { echo "expected exit 4 from run and 3 from perf-test, got $rc and $skip"; exit 1; }
fi

step "the report"
"$bench" report "$work/smoke.json" -o "$work/report.html"
grep -q "rmsnorm/cpu/fp32/rows1024_cols2048" "$work/report.html"
echo "downstream: OK"
