#include "harness/input_file.hpp"

#include <fmt/format.h>

#include <fstream>

#include "harness/errors.hpp"

namespace rooftop {
namespace fs = std::filesystem;
namespace {

struct TooDeep {};

template <class Json>
Json parse_bounded(std::string_view text, std::string_view origin, std::string_view what) {
  // The callback sees each value's depth as it opens, the outermost at 0; the parser itself
  // keeps no recursion.
  const typename Json::parser_callback_t bound = [](int depth, nlohmann::json::parse_event_t, Json&) {
    if (depth >= kMaxJsonDepth) throw TooDeep{};
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), bound);
  } catch (const TooDeep&) {
    throw InputError(fmt::format("{}: {} is nested deeper than {} levels: not a file rooftop reads", origin, what,
                                 kMaxJsonDepth));
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw InputError(fmt::format("{}: {} is not valid JSON ({})", origin, what, e.what()));
  }
}

// A scalar's compact text; a long string cut first, so that its length bounds the work.
// ASCII only (non-ASCII escaped): a cut never splits a character.
template <class Json>
std::string scalar_text(const Json& value, std::size_t limit) {
  const auto dump = [](const Json& v) { return v.dump(-1, ' ', true, Json::error_handler_t::replace); };
  if (value.is_string() && value.template get_ref<const std::string&>().size() > limit)
    return dump(Json(value.template get_ref<const std::string&>().substr(0, limit + 1)));
  return dump(value);
}

// Appends the compact text of `value` until `out` passes `limit`: only what is shown is
// visited (dumping a 1 GiB value whole, to show 40 characters of it, is not).
template <class Json>
void append_quoted(const Json& value, std::string& out, std::size_t limit) {
  if (!value.is_structured()) {
    out += scalar_text(value, limit);
    return;
  }
  out += value.is_array() ? '[' : '{';
  bool first = true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (out.size() > limit) return;  // cut by quote(); the rest is never visited
    if (!first) out += ',';
    first = false;
    if (value.is_object()) out += scalar_text(Json(it.key()), limit) + ':';
    append_quoted(*it, out, limit);  // at most `limit` levels: each adds a bracket
  }
  out += value.is_array() ? ']' : '}';
}

// The first `limit` characters of the compact text of a value, with "..." where it was cut.
template <class Json>
std::string quote(const Json& value, std::size_t limit) {
  std::string text;
  append_quoted(value, text, limit);
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  return text;
}

}  // namespace

std::string read_input_file(const fs::path& path, std::string_view what) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw InputError(fmt::format("{}: cannot open {}: no such file (or it cannot be read)", path.string(), what));
  if (fs::is_directory(status))
    throw InputError(fmt::format("{}: is a directory, not a {}: give the file's path", path.string(), what));
  // A pipe (`@<(cmd)`, /dev/stdin) is read up to the bound; a device never ends.
  if (!fs::is_regular_file(status) && !fs::is_fifo(status))
    throw InputError(fmt::format("{}: is a device or socket, not a {}: give a file's path", path.string(), what));
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxInputFileBytes)
    throw InputError(fmt::format("{}: {} bytes, more than the {} GiB rooftop reads as a {}", path.string(), size,
                                 kMaxInputFileBytes >> 30, what));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open {}", path.string(), what));
  // One read into a string of the file's size: a stringstream grows by copies.
  std::string text;
  text.reserve(static_cast<std::size_t>(ec ? 0 : size));
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxInputFileBytes)  // a file that grows while it is read
      throw InputError(fmt::format("{}: more than the {} GiB rooftop reads as a {}", path.string(),
                                   kMaxInputFileBytes >> 30, what));
  }
  return text;
}

nlohmann::json parse_json_input(std::string_view text, std::string_view origin, std::string_view what) {
  return parse_bounded<nlohmann::json>(text, origin, what);
}

nlohmann::ordered_json parse_ordered_json_input(std::string_view text, std::string_view origin, std::string_view what) {
  return parse_bounded<nlohmann::ordered_json>(text, origin, what);
}

std::string quote_json(const nlohmann::json& value, std::size_t limit) { return quote(value, limit); }
std::string quote_json(const nlohmann::ordered_json& value, std::size_t limit) { return quote(value, limit); }

}  // namespace rooftop
