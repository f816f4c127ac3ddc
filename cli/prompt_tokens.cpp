#include "cli/prompt_tokens.hpp"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/errors.hpp"
#include "harness/input_file.hpp"

namespace rooftop {
namespace {

std::int32_t token_id(const nlohmann::json& v, const std::string& origin) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > std::numeric_limits<std::int32_t>::max())
    throw InputError(fmt::format("--prompt {}: {} is not a token id (a non-negative integer)", origin, quote_json(v)));
  return static_cast<std::int32_t>(v.get<std::int64_t>());
}

}  // namespace

std::vector<std::int32_t> parse_prompt_tokens(const std::string& text) {
  std::string body = text, origin = "'" + text.substr(0, 40) + (text.size() > 40 ? "...'" : "'");
  if (text.starts_with("@")) {
    origin = text.substr(1);
    body = read_input_file(origin, "prompt file (--prompt @FILE)");
  }
  std::vector<std::int32_t> ids;
  const auto first = body.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (body[first] == '[' || body[first] == '{')) {
    nlohmann::json j = parse_json_input(body, "--prompt " + origin, "prompt");
    if (j.is_object()) {
      if (!j.contains("prompt"))
        throw InputError(fmt::format("--prompt {}: a JSON object without \"prompt\" (give the ids as an array)", origin));
      j = j["prompt"];
    }
    if (!j.is_array()) throw InputError(fmt::format("--prompt {}: \"prompt\" is not an array of token ids", origin));
    for (const auto& v : j) ids.push_back(token_id(v, origin));
  } else {
    for (char& c : body)
      if (c == ',') c = ' ';
    std::istringstream in(body);
    for (std::string word; in >> word;) {
      std::size_t used = 0;
      long long v = -1;
      try {
        v = std::stoll(word, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != word.size() || v < 0 || v > std::numeric_limits<std::int32_t>::max())
        throw InputError(fmt::format("--prompt {}: '{}' is not a token id (a non-negative integer)", origin, word));
      ids.push_back(static_cast<std::int32_t>(v));
    }
  }
  if (ids.empty()) throw InputError(fmt::format("--prompt {}: no token ids", origin));
  return ids;
}

}  // namespace rooftop
