#pragma once
// What was measured, in one line a buyer reads: a CPU's cores and threads (and how many the
// run used), sockets and memory; a GPU's multiprocessors, memory, power limit and clock.
// Only from the fields a results file already carries; a field it lacks is left out.
#include <nlohmann/json.hpp>
#include <string>

namespace rooftop::reports {

// "2 cores / 2 threads (2 used), 1 socket, 23.5 GiB memory, avx512_core_vnni";
// "132 SMs, 79.2 GiB memory, 700 W power limit, SM clock up to 1980 MHz, compute 9.0".
std::string machine_text(const nlohmann::ordered_json& device);

}  // namespace rooftop::reports
