#pragma once
// The numbers derived from a result and the device's ceilings, computed once, here: the
// JSON writer, the printers and the report read them from the record (ResultRecord::derived,
// computed once by derive_record), none recomputes them.
#include <optional>
#include <string>

#include "harness/roofline.hpp"
#include "harness/statistics.hpp"

namespace rooftop {

struct ResultRecord;

// A collective's bus bandwidth against the link it crosses.
struct LinkShare {
  std::string link;  // "nvlink (datasheet NVIDIA H200 SXM, one direction)"
  double link_bytes_per_s = 0;
  double percent = 0;  // bus bandwidth / link bandwidth x 100
};

struct Throughput {
  double flops_per_s = 0;  // work FLOPs / median time
  double bytes_per_s = 0;  // work bytes / median time (a collective's algbw)
  std::optional<double> bus_bytes_per_s;  // collectives: algbw x bus factor (nccl-tests' busbw)
  std::optional<LinkShare> link;
};

// The device's power while a point ran, from its energy counter (NVML on NVIDIA GPUs).
struct PowerDraw {
  double board_w = 0;               // energy / wall time, summed over the repetitions
  double joules_per_iteration = 0;  // board_w x the median time of an iteration
  double flops_per_watt = 0;        // the median rate over board_w; 0 for work without FLOPs
  std::optional<double> joules_per_token;  // a scenario that names its tokens an iteration
};

struct Derived {
  std::optional<Summary> summary;  // none without samples
  std::optional<Throughput> throughput;
  std::optional<RooflinePlacement> roofline;  // none without ceilings for the dtype
  std::optional<PowerDraw> power;             // none where no sample measured energy
  bool cold = false;  // timed with the cache flushed before each launch
};

Derived derive(const ResultRecord& record, const Ceilings* ceilings);

}  // namespace rooftop
