#include "harness/json_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <string>

#include "harness/errors.hpp"

namespace rooftop {

nlohmann::ordered_json read_json_file(const std::filesystem::path& path, const char* what) {
  if (std::filesystem::is_directory(path))
    throw InputError(fmt::format("{}: is a directory, not a {}: give the file's path", path.string(), what));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open {}", path.string(), what));
  // One read into a string of the file's size: a stringstream grows by copies, and a
  // 10,000-result run is 10 MB.
  std::string text;
  char chunk[1 << 16];
  if (const auto size = std::filesystem::is_regular_file(path) ? std::filesystem::file_size(path) : 0) text.reserve(size);
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) text.append(chunk, static_cast<std::size_t>(in.gcount()));
  if (text.empty()) throw InputError(fmt::format("{}: {} is empty", path.string(), what));
  try {
    return nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw InputError(fmt::format("{}: {} is not valid JSON ({})", path.string(), what, e.what()));
  }
}

}  // namespace rooftop
