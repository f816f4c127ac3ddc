#pragma once
// The results of a run: what every backend and suite produce and what the gate and the
// reports read. Schema: harness/schema/results.schema.json (documented in docs/results.md).
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/derived.hpp"
#include "harness/device_profile.hpp"
#include "harness/problem.hpp"

namespace rooftop {

inline constexpr int kResultsSchemaVersion = 1;
// A point on a generic path (ResultRecord::generic_path) below this fraction of its roof is
// flagged (roofline.slow_generic_path): it measures the fallback, not the machine.
inline constexpr double kSlowGenericPathFraction = 0.20;
// The times an iteration a run can measure, a picosecond to 10^6 s (11.6 days); a sample
// outside is refused when read (issue 52, N15: samples of 1e308 s overflowed the gate's sums,
// and its table read "- [-, -]", "-nan%" and "slower by inf").
inline constexpr double kMinSecondsPerIteration = 1e-12, kMaxSecondsPerIteration = 1e6;

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

// What the harness learned while measuring a point, beside the suite's own parameters. Typed
// here; this module alone writes it into the results' "params" (and reads it back), under
// the keys the schema has always had, after the suite's own.
struct MeasurementFacts {
  std::string cache;  // a point timed by the backend's timer: "warm" or "cold (flushed before each launch)"
  std::string link;   // a collective: the link its bus bandwidth is drawn against (Backend::collective_link)
  double link_bytes_per_s = 0;
  // A scenario's stage record (scenario_loop.cpp): the stage, the point it belongs to, how it was timed.
  std::string stage, of, timing;
  bool is_stage() const { return !stage.empty(); }
};

// A matrix product's sizes, as a GEMM point declares them.
struct MatrixSizes {
  std::int64_t m = 0, n = 0, k = 0;
};
// What a suite declares in its parameters that the harness and the reports compute with: read
// once, here (declared_facts), from the suite's "params", so nothing else reads them by key.
// The report labels a collective's point and an inference scenario's row with them, and the
// diagnosis checks a GEMM's sizes against the matrix units' alignment.
struct DeclaredFacts {
  double bus_factor = 0;            // a collective: busbw / algbw (nccl-tests); 0: not a collective
  double tokens_per_iteration = 0;  // a scenario: tokens one timed iteration yields; 0: none
  // A collective's own words: its name ("all_reduce"), message size (nccl-tests' "size"), ranks, form.
  std::string collective;
  double size_bytes = 0;
  int ranks = 0;
  bool in_place = false;
  std::string scenario;  // an inference point's: "prefill", "decode", "generate" or "serve"; empty: none
  double slo_ttft_s = 0, slo_tpot_s = 0;  // a serve point's service-level objective; 0: none
  std::optional<MatrixSizes> matrix;  // a point with whole-number m, n and k (a GEMM's sizes)
};
DeclaredFacts declared_facts(const nlohmann::ordered_json& params);

struct ResultRecord {
  Problem problem;
  DeclaredFacts declared;     // from problem.params, at the record's making (declared_facts)
  MeasurementFacts measured;  // what the harness learned while measuring it
  // The numbers derived from the samples and the run's ceilings (harness/derived.hpp), computed
  // once when the record is complete (derive_record) and read by the writer, the printers and
  // the report; empty until then, and derived_of() says so instead of computing them.
  std::optional<Derived> derived;
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

// A run made with ROOFTOP_INJECT_SLOWDOWN (gate calibration, harness/injected_slowdown.hpp):
// each timed iteration of the points `match` finds (every point where it is empty) was
// made `fraction` slower on purpose.
struct InjectedSlowdown {
  double fraction = 0;
  std::string match;
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
  std::optional<InjectedSlowdown> injected_slowdown;  // none: timed as it runs
  // The host's readings before and after the run, its verdict (busy or not) and the ceilings
  // re-measured because a result exceeded them (harness/system_state.hpp); null: not read.
  nlohmann::ordered_json conditions;
};

struct RunResults {
  RunMetadata meta;
  std::vector<ResultRecord> results;
};

// The record's derived numbers from `ceilings` (the run's), kept in it; again after its samples change.
void derive_record(ResultRecord& record, const Ceilings* ceilings);
// Every record's, from the run's own ceilings.
void derive_records(RunResults& run);
// The record's derived numbers; std::logic_error naming the record when derive_record has not run.
const Derived& derived_of(const ResultRecord& record);
// A record of `problem`, its declared facts read from its parameters.
ResultRecord record_of(Problem problem);

// A point that ran a generic path (ResultRecord::generic_path) below kSlowGenericPathFraction
// of its roof: it measures rooftop's fallback, not the machine (results' roofline.slow_generic_path).
bool slow_generic_path(const ResultRecord& record);

// Every record must have been derived (derive_records): the writer computes nothing.
nlohmann::ordered_json results_to_json(const RunResults& run);
// Reads what results_to_json wrote; derived fields (summary, roofline) are recomputed from
// the samples and ceilings (derive_records), not trusted. Throws InputError naming `origin` and the field.
RunResults results_from_json(const nlohmann::ordered_json& json, const std::string& origin);
RunResults load_results(const std::filesystem::path& path);
void save_results(const std::filesystem::path& path, const RunResults& run);

// The JSON object of one (derived) record, as written in "results".
nlohmann::ordered_json record_to_json(const ResultRecord& record);

std::string utc_now_iso8601();
nlohmann::ordered_json host_properties();

}  // namespace rooftop
