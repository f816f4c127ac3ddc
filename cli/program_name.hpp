#pragma once
#include <string>

namespace rooftop::cli {

// The running program's name, for the commands a message tells the user to type: "rooftop",
// or a downstream project's benchmark program (set by rooftop::run_main).
const std::string& program_name();
void set_program_name(std::string name);

}  // namespace rooftop::cli
