#pragma once
// Roofline math: where a measured result sits under a device's ceilings.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/dtype.hpp"
#include "harness/work.hpp"

namespace rooftop {

struct ComputeCeiling {
  std::string name;   // "fp32_vector_fma", "bf16_matrix"
  std::string dtype;  // the problem dtype it bounds: "fp32", "bf16", "int8"
  std::string unit;   // what executes it: "avx512_fma", oneDNN's ISA string, "tensor core"
  double flops_per_s = 0;
};

struct BandwidthCeiling {
  std::string level;          // "L1", "L2", "L3", "DRAM", "HBM"
  double bytes_per_s = 0;
  double capacity_bytes = 0;  // aggregate over the cores used; 0 for the last level (unbounded)
};

// A transfer path between devices or to the host: "pcie_h2d", "pcie_d2h", "nvlink_p2p".
struct LinkCeiling {
  std::string name;
  double bytes_per_s = 0;  // one direction
};

struct Ceilings {
  std::vector<ComputeCeiling> compute;
  std::vector<BandwidthCeiling> bandwidth;  // ordered from the closest level outwards
  double dispatch_latency_s = 0;  // the smallest time one operation takes on the device
  std::vector<LinkCeiling> links;
};

enum class Bound { memory, compute, latency };
std::string_view bound_name(Bound bound);

// An operation whose ideal time at the roof is under this many dispatch latencies is
// latency-bound: the device's fixed cost per operation is then at least a fifth of the
// ideal time, so no implementation can reach 1/(1 + 1/5) = 83% of the roof. (10 made an
// H200's 117 MB decode GEMM, 25 us at the roof beside a 3 us launch, latency-bound.)
inline constexpr double kLatencyBoundFactor = 5.0;

double attainable_flops(double compute_peak, double bandwidth, double intensity);
double ridge_intensity(double compute_peak, double bandwidth);

// True when units measured for `unit_dtype` can run a `problem_dtype` problem: the same
// dtype, or fp32 units for bf16, fp16 and tf32 (which widen to fp32 exactly). A roof must
// bound every way the work could run: on a CPU without bf16 units, a bf16 kernel that
// widens to fp32 outran the bf16 matrix ceiling by 43%.
bool can_execute(Dtype unit_dtype, Dtype problem_dtype);
// The highest compute ceiling that can execute this dtype, or nullptr.
const ComputeCeiling* compute_ceiling_for(const Ceilings& ceilings, Dtype dtype);
// A level bounds a working set up to this many times its capacity: repeated iterations
// leave part of a slightly larger set resident (seen: a 50 MB GEMV over a 36 MB L3 ran
// 14% above the DRAM roof), and a roof must be an upper bound.
inline constexpr double kResidencyFactor = 2.0;

// The closest memory level with capacity x kResidencyFactor >= the working set; the last
// level when none; nullptr when there is none.
const BandwidthCeiling* bandwidth_ceiling_for(const Ceilings& ceilings, double working_set_bytes);
// The level the working set's bytes stream from: the closest whose capacity holds it whole
// (no residency allowance); the last level when none. A set between one and two capacities
// is bounded above by the closer level but streams, mostly, from the next.
const BandwidthCeiling* streaming_level_for(const Ceilings& ceilings, double working_set_bytes);

struct RooflinePlacement {
  std::string compute_ceiling;
  double compute_peak = 0;
  std::string memory_level;
  double bandwidth = 0;
  double ridge_intensity = 0;
  double attainable_flops = 0;
  double achieved_flops = 0;
  double fraction_of_attainable = 0;  // achieved / attainable
  Bound bound = Bound::compute;
  bool above_ceiling = false;  // achieved > 105% of attainable: the ceiling is wrong
  // Where the bytes stream from (streaming_level_for): it decides the bound, so a GEMV over
  // 1.9x the L3 is memory-bound on DRAM, not compute-bound under the L3's slope.
  std::string stream_level;
  double stream_bandwidth = 0;
  double fraction_of_stream = 0;  // achieved / attainable at the stream level's bandwidth
};

inline constexpr double kAboveCeilingTolerance = 1.05;

// Empty when the ceilings have no compute roof for the dtype or no bandwidth roof. A `cold`
// result (caches flushed before each timed launch) is judged against the last level.
std::optional<RooflinePlacement> place_on_roofline(const Ceilings& ceilings,
                                                   Dtype dtype, const Work& work,
                                                   double seconds, bool cold = false);

}  // namespace rooftop
