#pragma once
// The results of a run: what every backend and suite produce and what the gate and the
// reports read. Schema: harness/schema/results.schema.json (documented in docs/results.md).
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/device_profile.hpp"
#include "harness/problem.hpp"

namespace rooftop {

inline constexpr int kResultsSchemaVersion = 1;
// A point on a generic path (ResultRecord::generic_path) below this fraction of its roof is
// flagged (roofline.slow_generic_path): it measures the fallback, not the machine.
inline constexpr double kSlowGenericPathFraction = 0.20;

// ok: measured and correct; skipped: does not apply here; failed: wrong results;
// error: could not run (allocation, library error).
enum class Status { ok, skipped, failed, error };
std::string_view status_name(Status status);
Status parse_status(std::string_view text);

struct Sample {
  double seconds_per_iteration = 0;  // one repetition: its time divided by its iterations
  std::int64_t iterations = 0;
  double clock_mhz = 0;  // device clock read at the end of the repetition (0: unknown)
  // The device's energy over the repetition and the repetition's wall time (warm-up launches
  // and cache flushes included): 0 where the device has no energy counter.
  double energy_j = 0, wall_s = 0;
};

struct ResultRecord {
  Problem problem;
  Status status = Status::ok;
  std::string reason;  // why it was skipped, failed or errored
  std::string implementation;
  std::string implementation_label;  // short, for the terminal table (Instance::implementation_label)
  std::string generic_path;          // why a generic path ran (Instance::generic_path); empty: the fast one
  std::optional<Correctness> correctness;
  std::vector<Sample> samples;
  // A scenario's own measures, one value a repetition (inference: ttft_s, tokens_per_s).
  std::vector<std::pair<std::string, std::vector<double>>> metrics;
  // What a scenario computed, for comparing with another implementation (inference: the
  // prompt's greedy tokens and the last prompt position's top logits); null: none.
  nlohmann::ordered_json outputs;
  // Its samples' seconds per iteration, in order: what every statistic reads.
  std::vector<double> seconds() const {
    std::vector<double> s;
    s.reserve(samples.size());
    for (const auto& x : samples) s.push_back(x.seconds_per_iteration);
    return s;
  }
};

struct RunMetadata {
  std::string rooftop_version;
  std::string git_commit;
  std::string created;  // ISO 8601 UTC
  nlohmann::ordered_json host;
  std::string command;
  std::string tier;
  std::uint64_t seed = 0;
  std::string backend;
  std::string fingerprint;
  nlohmann::ordered_json device;
  std::optional<Ceilings> ceilings;  // measured, from the device profile
  std::string ceilings_source;       // the profile file, or why there are none
  std::optional<Datasheet> datasheet;
  bool complete = false;  // false while running and after an interrupt
  // The host's readings before and after the run, its verdict (busy or not) and the ceilings
  // re-measured because a result exceeded them (harness/system_state.hpp); null: not read.
  nlohmann::ordered_json conditions;
};

struct RunResults {
  RunMetadata meta;
  std::vector<ResultRecord> results;
};

nlohmann::ordered_json results_to_json(const RunResults& run);
// Reads what results_to_json wrote; derived fields (summary, roofline) are recomputed,
// not trusted. Throws InputError naming `origin` and the field.
RunResults results_from_json(const nlohmann::ordered_json& json, const std::string& origin);
RunResults load_results(const std::filesystem::path& path);
void save_results(const std::filesystem::path& path, const RunResults& run);

// The JSON object of one record with its derived fields, as written in "results".
nlohmann::ordered_json record_to_json(const ResultRecord& record, const Ceilings* ceilings);

std::string utc_now_iso8601();
nlohmann::ordered_json host_properties();

}  // namespace rooftop
