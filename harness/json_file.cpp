#include "harness/json_file.hpp"

#include <fmt/format.h>

#include <string>

#include "harness/errors.hpp"
#include "harness/input_file.hpp"

namespace rooftop {

nlohmann::ordered_json read_json_file(const std::filesystem::path& path, const char* what) {
  const std::string text = read_input_file(path, what);
  if (text.empty()) throw InputError(fmt::format("{}: {} is empty", path.string(), what));
  return parse_ordered_json_input(text, path.string(), what);
}

}  // namespace rooftop
