#pragma once
// The ceilings a report's own results beat: a roof measured low (on a busy machine the CPU's
// int8 roof came out at 727 GOP/s against 2.0 TOP/s achieved) puts every row under it above
// 100% of its roof. The page says so once, at the top, with the command that fixes it.
#include <string>
#include <vector>

#include "reports/html_report.hpp"

namespace rooftop::reports {

struct LowCeiling {
  std::string device;   // as people call it: "Intel(R) Xeon(R) Processor @ 2.50GHz"
  std::string ceiling;  // "int8_matrix" or "DRAM bandwidth"
  std::string value;    // the ceiling, scaled: "727 GOP/s"
  std::string reached;  // the fastest result under it, scaled: "2.000 TOP/s"
  double percent = 0;   // that result's share of the ceiling
  int results = 0;      // how many results sit above it
  std::string command;  // what measures it again: "rooftop characterize --backend cpu --merge"
};

// Each (device, ceiling) that one or more results exceed by more than the roofline's
// tolerance (kAboveCeilingTolerance), in the order of the inputs.
std::vector<LowCeiling> low_ceilings(const std::vector<ReportInput>& inputs);

}  // namespace rooftop::reports
