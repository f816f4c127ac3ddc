#pragma once
// A suite: a typed descriptor of its points (dtypes, shape syntax, tier sweeps), how its
// points are measured, and its implementations, one per backend, each registered from its
// own source file (harness/registry.hpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/dtype.hpp"
#include "harness/problem.hpp"
#include "harness/tier.hpp"

namespace rooftop {

class Transport;
class Watchdog;

// How a family's points are timed.
enum class Measurement {
  kernel_loop,     // one process runs the kernel in a loop, timed by Google Benchmark
  lockstep_ranks,  // every rank runs the same points in lockstep (collectives); the slowest rank's time
  scenario,        // a scripted sequence with its own timings (end-to-end inference)
};
std::string_view measurement_name(Measurement measurement);

// What a sweep or a user's shape is planned for.
struct PlanContext {
  Tier tier = Tier::quick;
  std::string backend = "cpu";
  int ranks = 1;  // lockstep families: the ranks of the run
  std::vector<std::int32_t> prompt = {};  // a user's shapes: the prompt's token ids (RunOptions::prompt)
  std::string slo = {};     // inference serve points: the objective as given (RunOptions::slo)
  bool sweep_rate = false;  // inference serve points: search the highest rate meeting it
  double available_memory_bytes = 0;  // the backend's (a device's, or the host's); 0: unknown
};

// What an instance is set up with.
struct SetupContext {
  std::uint64_t seed = 0;
  Transport* transport = nullptr;  // lockstep families: the ranks and their primitives
  Watchdog* watchdog = nullptr;    // lockstep families: ends a hung run
  double comm_timeout_s = 120;
};

// Allocates and fills a point's inputs; throws PointSkipped where it does not apply.
using InstanceFactory = std::function<std::unique_ptr<Instance>(const Problem&, const SetupContext&)>;

struct Family {
  std::string name;
  std::string description;
  Measurement measurement = Measurement::kernel_loop;
  std::vector<Dtype> dtypes;
  std::vector<Dtype> shape_dtypes;  // what a --shape runs without --dtype; empty: every dtype
  std::string shape_syntax;         // how a user writes a shape, e.g. "MxNxK"
  std::string prompt_shapes;  // the shapes that take run --prompt's token ids (PlanContext::prompt); empty: none
  // The points of a user's shape in one dtype (several where the shape is a range); throws
  // InputError on an impossible shape.
  std::function<std::vector<Problem>(std::string_view shape, Dtype dtype, const PlanContext& context)> shape_points;
  // Every point of the tier's sweep on the context's backend.
  std::function<std::vector<Problem>(const PlanContext& context)> sweep;
  // The tile configurations `rooftop tune` tries for a point, besides its default (the
  // shape's tile, or Problem::tile; empty: the point is not tunable). Null: no tunable points.
  std::function<std::vector<std::string>(const Problem& point)> tile_candidates;
};

}  // namespace rooftop
