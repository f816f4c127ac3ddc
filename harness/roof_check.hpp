#pragma once
// A result above its roof means the roof was measured low (a busy host during
// `characterize`): the run re-measures that ceiling, boundedly, and keeps the higher one,
// saying both, instead of printing 248% of roof.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/roofline.hpp"

namespace rooftop {

struct ExceededCeiling {
  std::string ceiling;  // a compute ceiling's name or a memory level
  bool compute = true;  // which of the two roofs bounded the result
  std::string trigger;  // the result that exceeded it most
  double percent = 0;   // its percent of the roof
};

// The ceilings that results of `results_json` (results_to_json's) exceed, each once, with the
// result that exceeds it most; empty when none does.
std::vector<ExceededCeiling> exceeded_ceilings(const nlohmann::ordered_json& results_json);

// Raises each exceeded ceiling of `ceilings` to the re-measured value where that is higher.
// Returns the results' conditions.remeasured entries: ceiling, unit, old, new, raised,
// trigger, trigger_percent.
nlohmann::ordered_json raise_ceilings(Ceilings& ceilings, const std::vector<ExceededCeiling>& exceeded,
                                      const Ceilings& remeasured);

}  // namespace rooftop
