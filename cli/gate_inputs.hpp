#pragma once
// What `rooftop gate` decides against, shared with `rooftop report --baseline` so that both
// decide alike: the baseline of a run's device and tier, the gate config kept beside it,
// and the exit code of a verdict.
#include <filesystem>
#include <optional>
#include <string>

#include "harness/gate.hpp"
#include "harness/results.hpp"

namespace rooftop::cli {

// "no run", "1 run", "3 runs".
std::string runs_phrase(int runs);
// The command that makes a baseline of this run's suites.
std::string make_baseline_hint(const RunResults& run, const std::filesystem::path& store);
enum class GateUnit { automatic, run, repetition };
GateUnit gate_unit_named(const std::string& name);  // auto, run, repetition

// Gates `run` against the baseline in a file (*.json) or a store directory: with the run as
// the unit (harness/run_unit_gate.hpp) when the baseline keeps the medians of at least
// config.min_baseline_runs runs or `unit` asks for it, else repetition against repetition
// (a note on stderr says what that cannot see). nullopt when the store has no baseline for
// this device. Throws InputError for a baseline of another device or tier.
std::optional<GateReport> gate_against_baseline(const std::filesystem::path& where, const RunResults& run,
                                                const GateConfig& config, const std::string& run_origin,
                                                GateUnit unit = GateUnit::automatic);
// gate.json beside the device's baselines in a store (empty for a baseline file).
std::filesystem::path machine_gate_config(const std::filesystem::path& where, const RunResults& run);
// 1 with a FAIL; 2 (and why, on stderr) when nothing was compared; else 0.
int gate_exit_code(const GateReport& report);

}  // namespace rooftop::cli
