#pragma once
// Performance per watt of one device against another, like for like: a measured board power
// on one side and a datasheet TDP on the other are never divided into one ratio (the same
// H100 run, its energy fields removed from one copy, read x1.59 per W).
#include <optional>
#include <string>
#include <vector>

namespace rooftop::reports {

// One device over the workloads every machine ran (the same order on both sides).
struct PowerSide {
  std::string name;                          // as people call it, for the "not comparable" text
  std::vector<double> rate;                  // FLOP/s or bytes/s per workload
  std::vector<std::optional<double>> board_w;  // measured board power per workload, where the run has energy
  std::optional<double> tdp_w;               // the datasheet's TDP, never invented
};

// The geometric mean of (rate / W) over (reference rate / W), labelled with its basis:
// measured board power on both sides where every workload has it, else the datasheet TDP on
// both sides where both have one, else measured on both over the workloads that have it;
// otherwise "not comparable", saying which side is TDP.
std::string per_watt_ratio(const PowerSide& device, const PowerSide& reference);

}  // namespace rooftop::reports
