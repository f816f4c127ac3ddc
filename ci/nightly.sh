#!/usr/bin/env bash
# The nightly performance gate, and the pull-request A/B. Called by ci/github/rooftop-nightly.yml;
# runs the same on a developer's machine.
#
#   ci/nightly.sh nightly [OUT_DIR]      build, then for every backend this runner has: characterize,
#                                        run the tier, gate against the rolling baseline (the last
#                                        accepted nights of this device; a FAIL must repeat in a
#                                        re-run of the FAILed benchmarks), write results-B.json,
#                                        results-B.md, gate-B.md, gate-junit-B.xml, gate-B.json; add
#                                        the nights to the history ($ROOFTOP_HISTORY) and check its
#                                        series for change points (history.txt)
#   ci/nightly.sh pr BASE_REF [OUT_DIR]  build BASE_REF and HEAD, run `rooftop ab` between them
#
# Backends: cpu always, and cuda (or hip) where `rooftop info --backend cuda` finds a device;
# ROOFTOP_NIGHTLY_BACKENDS="cuda" (a list, spaces or commas) names them instead. Tier:
# ROOFTOP_NIGHTLY_TIER (default full); each backend's baseline must be of this tier (docs/ci.md).
# ROOFTOP_NIGHTLY_BIN: a rooftop binary to use instead of building one.
# ROOFTOP_NIGHTLY_RUN_ARGS: more `rooftop run` arguments for the night's run and its re-run
# (e.g. "--suite gemm"); ROOFTOP_NIGHTLY_CHARACTERIZE_ARGS: more `characterize` arguments
# (e.g. "--quick"). Both split on spaces; the baselines must come from runs with the same.
# ROOFTOP_NIGHTLY_ALLOW_INJECTED=1: nights made with ROOFTOP_INJECT_SLOWDOWN go into the
# histories (`history add --allow-injected`: calibrating the gate and the history check, as
# ci/gpu-nightly-check.sh does); without it they are refused there.
#
# The rolling baseline (docs/ci.md): every night that passed (exit 0, or 3 in the warm-up) is added to the accepted
# history ($ROOFTOP_ACCEPTED_HISTORY, default the history's name with -accepted), and the gate
# tests each night against the last ROOFTOP_NIGHTLY_NIGHTS (default 10) of them, each
# benchmark's night-to-night spread learned from its own nights. A FAILed or amber night stays out
# until it is accepted by hand (`rooftop history add --db ACCEPTED results-B.json`). Until 2
# nights are accepted (the warm-up) the gate uses baselines/<this device> where one exists,
# else exits 3. ROOFTOP_NIGHTLY_BASELINE=store gates against baselines/ only, as before.
#
# Exit: 0 no regression, 1 a regression, 2 usage, 3 no baseline for this machine (nightly:
# for one of its backends), 6 UNRESOLVED: no FAIL but no all-clear (a slowdown above tau the
# suite's level could not confirm, a suite-wide shift it cannot attribute, or nothing decided:
# docs/gate.md). With several backends, the first of 1, 2, 3, 6 that any backend gave.
# Usage and environment problems are 2 and found before anything is built or measured: a
# ROOFTOP_NIGHTLY_BIN that is not an executable, a tier or run or characterize argument rooftop
# refuses, no place for the history (HOME unset and neither ROOFTOP_HISTORY nor XDG_DATA_HOME),
# a GITHUB_STEP_SUMMARY or an output folder that cannot be written. A night the history (or the
# rolling baseline) refuses is neither kept nor checked: it exits with history add's code (2)
# where the gates gave 0.
set -euo pipefail
mode=${1:-}
root=$(cd "$(dirname "$0")/.." && pwd)
build() {  # build SOURCE_DIR BUILD_DIR
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
  cmake --build "$2" --target rooftop
}
# The most serious of the exit codes given: 1, 2, 3, 6, then any other non-zero, else 0.
most_serious() {
  local code
  for code in 1 2 3 6; do
    [[ " $* " == *" $code "* ]] && { echo "$code"; return; }
  done
  for code in "$@"; do [ "$code" -ne 0 ] && { echo "$code"; return; }; done
  echo 0
}
# A usage or environment problem of the nightly: said, exit 2 (never 1, "a regression").
usage_error() {
  echo "nightly: $*" >&2
  exit 2
}
case "$mode" in
  nightly)
    out=${2:-rooftop-nightly}
    tier=${ROOFTOP_NIGHTLY_TIER:-full}
    # What the environment must give, checked before anything is built or measured (issue 52,
    # N11: a missing binary was 127, an unset HOME and an unwritable step summary 1).
    if [ -n "${ROOFTOP_NIGHTLY_BIN:-}" ] && ! command -v -- "$ROOFTOP_NIGHTLY_BIN" >/dev/null; then
      usage_error "ROOFTOP_NIGHTLY_BIN=$ROOFTOP_NIGHTLY_BIN is not an executable file: give a built rooftop's path, or" \
                  "unset it to build one"
    fi
    if [ -z "${ROOFTOP_HISTORY:-}" ] && [ -z "${XDG_DATA_HOME:-}" ] && [ -z "${HOME:-}" ]; then
      usage_error "HOME is not set, so the history has no place: set ROOFTOP_HISTORY to a file that outlives the" \
                  "checkout (or HOME)"
    fi
    history_db=${ROOFTOP_HISTORY:-${XDG_DATA_HOME:-$HOME/.local/share}/rooftop/history.sqlite}
    accepted_db=${ROOFTOP_ACCEPTED_HISTORY:-${history_db%.sqlite}-accepted.sqlite}
    for folder in "$out" "$(dirname "$history_db")" "$(dirname "$accepted_db")"; do
      mkdir -p "$folder" 2>/dev/null || usage_error "cannot make the folder $folder: give a place this user can write"
    done
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && ! { : >> "$GITHUB_STEP_SUMMARY"; } 2>/dev/null; then
      usage_error "GITHUB_STEP_SUMMARY=$GITHUB_STEP_SUMMARY cannot be written: give a file this user can write, or" \
                  "unset it"
    fi
    if [ -n "${ROOFTOP_NIGHTLY_BIN:-}" ]; then
      rooftop=$(command -v -- "$ROOFTOP_NIGHTLY_BIN")  # built already (a CI step of its own, or the bundle's bin/rooftop)
    else
      build "$root" "$root/build-nightly"
      rooftop="$root/build-nightly/cli/rooftop"
    fi
    export ROOFTOP_HOME=${ROOFTOP_HOME:-$out/home}
    if [ -n "${ROOFTOP_NIGHTLY_BACKENDS:-}" ]; then
      read -r -a backends <<< "${ROOFTOP_NIGHTLY_BACKENDS//,/ }"
    else
      backends=(cpu)
      for gpu in cuda hip; do
        # exit 0: a device is here; 4: built, no device (the reason is said); 2: not built.
        if reason=$("$rooftop" info --backend "$gpu" 2>&1); then
          backends+=("$gpu")
        else
          echo "nightly: $gpu not gated: ${reason##*error: }" >&2
        fi
      done
    fi
    read -r -a run_args <<< "${ROOFTOP_NIGHTLY_RUN_ARGS:-}"
    read -r -a characterize_args <<< "${ROOFTOP_NIGHTLY_CHARACTERIZE_ARGS:-}"
    # The night's command lines, parsed and checked by rooftop before anything is measured (a
    # bad tier was found after characterize, minutes in).
    # Each backend's run planned as it will run (its suites, shapes and dtypes).
    for backend in "${backends[@]}"; do
      "$rooftop" --parse-only run --backend "$backend" --tier "$tier" "${run_args[@]}" ||
        usage_error "ROOFTOP_NIGHTLY_TIER=$tier or ROOFTOP_NIGHTLY_RUN_ARGS is refused by rooftop run --backend $backend (above)"
    done
    "$rooftop" --parse-only characterize "${characterize_args[@]}" ||
      usage_error "ROOFTOP_NIGHTLY_CHARACTERIZE_ARGS is refused by rooftop characterize (above)"
    echo "nightly: gating ${backends[*]} at tier $tier"
    baseline_mode=${ROOFTOP_NIGHTLY_BASELINE:-history}
    nights=${ROOFTOP_NIGHTLY_NIGHTS:-10}
    allow_injected=()
    [ "${ROOFTOP_NIGHTLY_ALLOW_INJECTED:-0}" = 1 ] && allow_injected=(--allow-injected)
    case $baseline_mode in history|store) ;; *) echo "ROOFTOP_NIGHTLY_BASELINE=$baseline_mode: give history or store" >&2; exit 2 ;; esac
    codes=() run_codes=() history_codes=() history_files=()
    for backend in "${backends[@]}"; do
      echo "=== nightly: $backend"
      "$rooftop" characterize --backend "$backend" "${characterize_args[@]}"
      status=0
      "$rooftop" run --backend "$backend" --tier "$tier" --benchmark_enable_random_interleaving=true "${run_args[@]}" \
        --out "$out/results-$backend.json" --format md > "$out/results-$backend.md" || status=$?
      run_codes+=("$status")
      gate_night() {  # gate_night [--confirm RERUN.json]: the rolling baseline, else the stored one
        local outputs=(--markdown "$out/gate-$backend.md" --junit "$out/gate-junit-$backend.xml" --json "$out/gate-$backend.json")
        if [ "$baseline_mode" = history ] && [ -f "$accepted_db" ]; then
          local code=0
          "$rooftop" gate --history "$accepted_db" --history-runs "$nights" "$out/results-$backend.json" "$@" \
            "${outputs[@]}" || code=$?
          [ "$code" -ne 3 ] && return "$code"
          echo "nightly: $backend: warm-up (fewer than 2 accepted nights in $accepted_db): the stored baseline instead"
        fi
        "$rooftop" gate --baseline "$root/baselines" "$out/results-$backend.json" "$@" "${outputs[@]}"
      }
      gate=0
      gate_night || gate=$?
      # A timing FAIL must repeat in a re-run of the FAILed benchmarks before it fails the night:
      # one run's outlier on a shared machine is not a regression (docs/gate.md, "Confirmed by a
      # re-run").
      failed=$(python3 -c 'import json, re, sys
names = [c["name"] for c in json.load(open(sys.argv[1]))["comparisons"]
         if c["verdict"] == "FAIL" and not c.get("broken")]
print("^(" + "|".join(re.escape(n) for n in names) + ")$" if names else "")' "$out/gate-$backend.json" 2>/dev/null || true)
      if [ "$gate" -eq 1 ] && [ -n "$failed" ]; then
        "$rooftop" run --backend "$backend" --tier "$tier" --benchmark_enable_random_interleaving=true "${run_args[@]}" \
          --filter "$failed" --out "$out/rerun-$backend.json" > "$out/rerun-$backend.md" || true
        gate=0
        gate_night --confirm "$out/rerun-$backend.json" || gate=$?
      fi
      codes+=("$gate")
      echo "nightly: $backend: run exit $status, gate exit $gate"
      # The rolling baseline takes every complete night that passed (or warmed up): a FAIL stays
      # out, and so does an amber night (a slowdown above tau not yet confirmed: on a lent H200 a
      # 5% night read q 0.0100, was taken in, and hid the same 5% two nights later).
      if [ "$baseline_mode" = history ] && { [ "$gate" -eq 0 ] || [ "$gate" -eq 3 ]; } && [ "$status" -eq 0 ] \
         && [ -f "$out/results-$backend.json" ]; then
        accepted=0
        "$rooftop" history add "${allow_injected[@]}" "$out/results-$backend.json" --db "$accepted_db" || accepted=$?
        if [ "$accepted" -ne 0 ]; then
          echo "nightly: $backend: not added to the rolling baseline $accepted_db (history add exit $accepted, said" \
               "above): the night does not pass" >&2
          history_codes+=("$accepted")
        fi
      elif [ "$baseline_mode" = history ] && { [ "$gate" -eq 1 ] || [ "$gate" -eq 6 ]; }; then
        echo "nightly: $backend: this night $([ "$gate" -eq 1 ] && echo FAILed || echo "was amber (exit 6)") and stays" \
             "out of the rolling baseline; if it is as it should be, accept it: rooftop history add --db $accepted_db" \
             "$out/results-$backend.json"
      fi
      # The step summary is a view: one that cannot be written is said, and the night goes on.
      if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/gate-$backend.md" ]; then
        cat "$out/gate-$backend.md" >> "$GITHUB_STEP_SUMMARY" ||
          echo "nightly: warning: $backend's gate was not written to GITHUB_STEP_SUMMARY=$GITHUB_STEP_SUMMARY" >&2
      fi
      [ -f "$out/results-$backend.json" ] && history_files+=("$out/results-$backend.json")
    done
    # The history outlives the checkout (a self-hosted runner's home): each night is added,
    # then every series is searched for change points; a new slowdown fails the night.
    # A night the history refuses (another application's file, a date ahead) is neither kept
    # nor checked: the night exits with history add's code, not 0.
    history=0
    if [ "${#history_files[@]}" -gt 0 ]; then
      if "$rooftop" history add "${allow_injected[@]}" "${history_files[@]}" --db "$history_db"; then
        "$rooftop" history check --db "$history_db" > "$out/history.txt" || history=$?
        cat "$out/history.txt"
      else
        history=$?
        echo "nightly: the night was not added to the history $history_db (history add exit $history, said above):" \
             "it is neither kept nor checked, and the night does not pass" >&2
      fi
    fi
    history=$(most_serious "$history" "${history_codes[@]}")
    gate=$(most_serious "${codes[@]}")
    if [ "$gate" -ne 0 ]; then exit "$gate"; fi
    if [ "$history" -ne 0 ]; then exit "$history"; fi
    exit "$(most_serious "${run_codes[@]}")"
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
      -- --backend cpu --tier smoke --repetitions 3 --min-time 0.05
    ;;
  *)
    echo "usage: ci/nightly.sh nightly [OUT_DIR] | ci/nightly.sh pr BASE_REF [OUT_DIR]" >&2
    exit 2
    ;;
esac
