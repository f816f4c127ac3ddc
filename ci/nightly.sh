#!/usr/bin/env bash
# The nightly performance gate, and the pull-request A/B. Called by ci/github/rooftop-nightly.yml;
# runs the same on a developer's machine.
#
#   ci/nightly.sh nightly [OUT_DIR]      build, characterize, run the full tier, gate against
#                                        baselines/<this device> (a FAIL must repeat in a re-run
#                                        of the FAILed benchmarks), write results, Markdown, JUnit;
#                                        add the night to the history ($ROOFTOP_HISTORY) and
#                                        check its series for change points
#   ci/nightly.sh pr BASE_REF [OUT_DIR]  build BASE_REF and HEAD, run `rooftop ab` between them
#
# Exit: 0 no regression, 1 a regression, 2 usage, 3 no baseline for this machine (nightly),
# 6 UNRESOLVED: no FAIL but no all-clear (a slowdown above tau the suite's level could not
# confirm, a suite-wide shift it cannot attribute, or nothing decided: docs/gate.md).
set -euo pipefail
mode=${1:-}
root=$(cd "$(dirname "$0")/.." && pwd)
build() {  # build SOURCE_DIR BUILD_DIR
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
  cmake --build "$2" --target rooftop
}
case "$mode" in
  nightly)
    out=${2:-rooftop-nightly}
    mkdir -p "$out"
    build "$root" "$root/build-nightly"
    rooftop="$root/build-nightly/cli/rooftop"
    export ROOFTOP_HOME=${ROOFTOP_HOME:-$out/home}
    "$rooftop" characterize --backend cpu
    status=0
    "$rooftop" run --backend cpu --tier full --benchmark_enable_random_interleaving=true \
      --out "$out/results.json" --format md > "$out/results.md" || status=$?
    gate_night() {  # gate_night [--confirm RERUN.json]
      "$rooftop" gate --baseline "$root/baselines" "$out/results.json" "$@" \
        --markdown "$out/gate.md" --junit "$out/gate-junit.xml" --json "$out/gate.json"
    }
    gate=0
    gate_night || gate=$?
    # A timing FAIL must repeat in a re-run of the FAILed benchmarks before it fails the night:
    # one run's outlier on a shared machine is not a regression (docs/gate.md, "Confirmed by a
    # re-run").
    failed=$(python3 -c 'import json, re, sys
names = [c["name"] for c in json.load(open(sys.argv[1]))["comparisons"]
         if c["verdict"] == "FAIL" and not c.get("broken")]
print("^(" + "|".join(re.escape(n) for n in names) + ")$" if names else "")' "$out/gate.json" 2>/dev/null || true)
    if [ "$gate" -eq 1 ] && [ -n "$failed" ]; then
      "$rooftop" run --backend cpu --tier full --benchmark_enable_random_interleaving=true --filter "$failed" \
        --out "$out/rerun.json" > "$out/rerun.md" || true
      gate=0
      gate_night --confirm "$out/rerun.json" || gate=$?
    fi
    [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/gate.md" ] && cat "$out/gate.md" >> "$GITHUB_STEP_SUMMARY"
    # The history outlives the checkout (a self-hosted runner's home): each night is added,
    # then every series is searched for change points; a new slowdown fails the night.
    history_db=${ROOFTOP_HISTORY:-${XDG_DATA_HOME:-$HOME/.local/share}/rooftop/history.sqlite}
    history=0
    if "$rooftop" history add "$out/results.json" --db "$history_db"; then
      "$rooftop" history check --db "$history_db" > "$out/history.txt" || history=$?
      cat "$out/history.txt"
    fi
    if [ "$gate" -ne 0 ]; then exit "$gate"; fi
    if [ "$history" -ne 0 ]; then exit "$history"; fi
    exit "$status"
    ;;
  pr)
    base=${2:?usage: ci/nightly.sh pr BASE_REF [OUT_DIR]}
    out=${3:-rooftop-ab}
    mkdir -p "$out"
    merge_base=$(git -C "$root" merge-base "$base" HEAD)
    rm -rf "$out/base-src"
    git -C "$root" worktree add --detach "$out/base-src" "$merge_base" >/dev/null
    trap 'git -C "$root" worktree remove --force "$out/base-src"' EXIT
    build "$out/base-src" "$out/build-base"
    build "$root" "$root/build-head"
    # The command moved from harness/ to cli/; a base from before that has it in harness/.
    base_rooftop="$out/build-base/cli/rooftop"
    [ -x "$base_rooftop" ] || base_rooftop="$out/build-base/harness/rooftop"
    export ROOFTOP_HOME=${ROOFTOP_HOME:-$out/home}
    "$root/build-head/cli/rooftop" ab --a "$base_rooftop" --b "$root/build-head/cli/rooftop" \
      --budget "${ROOFTOP_AB_BUDGET:-10m}" --dir "$out/runs" --markdown "$out/ab.md" --junit "$out/ab-junit.xml" \
      -- --backend cpu --tier smoke --repetitions 10 --min-time 0.05
    ;;
  *)
    echo "usage: ci/nightly.sh nightly [OUT_DIR] | ci/nightly.sh pr BASE_REF [OUT_DIR]" >&2
    exit 2
    ;;
esac
