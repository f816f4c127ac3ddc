#pragma once
// What the results' "conditions" say about the host, in the words the terminal table and the
// report put at their top: a busy host's warning, and the ceilings a run raised.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rooftop::reports {

// "BUSY HOST: other processes used 50% of the 2 CPUs (before): timings are slower than
// this machine's best; re-run on a quiet machine"; empty for a quiet host or no readings.
std::string busy_host_warning(const nlohmann::ordered_json& conditions);
// One line per ceiling the run re-measured because a result exceeded it:
// "int8_matrix raised 727 GFLOP/s -> 1.65 TFLOP/s (re-measured: gemm/... ran at 163% of it)".
std::vector<std::string> remeasured_lines(const nlohmann::ordered_json& conditions);

}  // namespace rooftop::reports
