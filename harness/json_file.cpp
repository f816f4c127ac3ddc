#include "harness/json_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "harness/errors.hpp"

namespace rooftop {

nlohmann::ordered_json read_json_file(const std::filesystem::path& path, const char* what) {
  if (std::filesystem::is_directory(path))
    throw InputError(fmt::format("{}: is a directory, not a {}: give the file's path", path.string(), what));
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open {}", path.string(), what));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (buffer.str().empty()) throw InputError(fmt::format("{}: {} is empty", path.string(), what));
  try {
    return nlohmann::ordered_json::parse(buffer.str());
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw InputError(fmt::format("{}: {} is not valid JSON ({})", path.string(), what, e.what()));
  }
}

}  // namespace rooftop
