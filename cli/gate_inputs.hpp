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

// The command that makes a baseline of this run's suites.
std::string make_baseline_hint(const RunResults& run, const std::filesystem::path& store);
// The baseline for `run` from a file (*.json) or a store directory; nullopt when the store
// has none for this device. Throws InputError for a baseline of another device or tier.
std::optional<RunResults> find_baseline(const std::filesystem::path& where, const RunResults& run, std::string& origin);
// gate.json beside the device's baselines in a store (empty for a baseline file).
std::filesystem::path machine_gate_config(const std::filesystem::path& where, const RunResults& run);
// 1 with a FAIL; 2 (and why, on stderr) when nothing was compared; else 0.
int gate_exit_code(const GateReport& report);

}  // namespace rooftop::cli
