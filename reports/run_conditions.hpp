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
// A GPU's state from its first to its last reading (conditions.device_readings):
// "GPU before -> after: SM 1980 -> 1410 MHz, 41 -> 87 C, 95 -> 690 W; held down by
// sw_thermal_slowdown (after)"; empty without readings.
std::string device_state_line(const nlohmann::ordered_json& conditions);

}  // namespace rooftop::reports
