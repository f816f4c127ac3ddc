// The program's name in the commands messages tell the user to type (cli/commands.hpp).
#include <string>

#include "cli/program_name.hpp"

namespace rooftop::cli {
namespace {
std::string& program_storage() {
  static std::string name = "rooftop";
  return name;
}
}  // namespace

const std::string& program_name() { return program_storage(); }
void set_program_name(std::string name) { program_storage() = std::move(name); }

}  // namespace rooftop::cli
