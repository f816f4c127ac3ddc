#pragma once
// Plans the points of a run (suites, tier sweeps or user shapes, dtypes, filter) and measures
// them with their family's measurement kind: Google Benchmark's kernel loop, or the
// lockstep loop of a multi-rank suite. Every repetition is kept as a sample; results are
// saved after each point.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/backend.hpp"
#include "harness/family.hpp"
#include "harness/results.hpp"
#include "harness/tier.hpp"

namespace rooftop {

// How device work is timed: flushed cache before each launch, or warm; automatic flushes
// when the point's data fits in the cache.
enum class CachePolicy { automatic, cold, warm };

struct RunOptions {
  std::vector<std::string> suites;   // empty: every suite with this backend
  std::string backend = "cpu";
  Tier tier = Tier::quick;
  std::string filter;                // ECMAScript regex searched in point names
  std::vector<std::string> dtypes;   // empty: all
  std::vector<std::string> shapes;   // user shapes; replace the tier's sweep
  int repetitions = 10;
  std::optional<double> min_time_s;  // per repetition; default set by the tier
  std::uint64_t seed = 0;
  CachePolicy cache = CachePolicy::automatic;
  double comm_timeout_s = 120;       // collectives: a collective slower than this means a dead or hung rank
  std::optional<std::filesystem::path> out;  // results JSON, rewritten after every point
  bool stages = false;  // scenario suites: a point per stage from a profiling pass
  bool check = true;    // false: timing only, no reference check (ab after its first pair)
  std::optional<std::filesystem::path> trace;  // scenario suites: the profiling pass as Chrome trace events
  std::vector<std::int32_t> prompt;  // inference: the prompt's token ids (empty: seeded random ones)
  std::string slo;                   // inference serve points: --slo as given (empty: the default objective)
  bool sweep_rate = false;           // inference serve points: --sweep-rate
  std::vector<std::string> benchmark_args;   // --benchmark_* flags, passed to Google Benchmark
  // Tile configurations by point name, for points whose family tunes (Family::tile_candidates)
  // and that name none themselves: rooftop tune's choices for this device, or its candidates.
  struct TileChoice {
    std::string tile;    // empty: the point's default
    std::string source;  // the point's tile_source, e.g. "tuned 2026-11-24T14:50:00Z"
  };
  std::map<std::string, TileChoice> tiles;
  std::string command_line;
};

// The points a run would measure on `ranks` ranks, in order; throws InputError on an unknown
// suite or dtype, an impossible shape, a user's shape larger than `available_bytes` of
// device memory (0: unknown) or a filter that matches nothing.
std::vector<Problem> plan_points(const RunOptions& options, double available_bytes = 0, int ranks = 1);

// Sets the tile and tile_source (Problem::tile) of the tunable points from options.tiles
// (a point not in it keeps its default tile, and its source says so).
void apply_tiles(const RunOptions& options, std::vector<Problem>& points);
// True when the suites asked for run on several ranks in lockstep (collectives): the run
// then needs the backend's transport. Throws InputError as plan_points does.
bool runs_in_lockstep(const RunOptions& options);
// How the selected suites' points are measured (the first suite's kind).
Measurement measurement_of(const RunOptions& options);

// Measures every planned point. `metadata` carries device, ceilings and provenance;
// `transport` the ranks of a lockstep run (null otherwise). Returns the results (also
// saved to options.out by the process that writes); sets `interrupted` after a Ctrl-C.
RunResults run_points(const RunOptions& options, const Backend& backend, RunMetadata metadata, Transport* transport,
                      bool& interrupted);

// Default seconds per repetition for a tier: short for smoke, longer for nightly.
double default_min_time(Tier tier);

}  // namespace rooftop
