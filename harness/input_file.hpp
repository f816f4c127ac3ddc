#pragma once
// Files rooftop reads from users and other machines (results, configs, prompts, lengths
// files, model configs): a regular file of bounded size, read whole, and JSON parsed with a
// bound on its nesting. A device (`/dev/zero`) or a file past the bound is refused before it
// is read, a pipe once it passes the bound (read whole, /dev/zero ran the memory out); a value nested thousands
// deep is refused while it is parsed (quoting one recursed once a level and overflowed the
// stack).
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace rooftop {

// 1 GiB: a 10,000-result run is 10 MB, a model's config a few KB.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{1} << 30;
// Deeper than any file rooftop writes or reads (results nest about 6 levels).
inline constexpr int kMaxJsonDepth = 128;

// The file's bytes. InputError (exit 2) naming the file and `what` it was meant to be
// when it is missing, a folder, a device or socket, or larger than kMaxInputFileBytes.
std::string read_input_file(const std::filesystem::path& path, std::string_view what);

// Parses `text`; InputError "ORIGIN: WHAT is not valid JSON (...)" on a syntax error, and
// "... nested deeper than 128 levels" past kMaxJsonDepth.
nlohmann::json parse_json_input(std::string_view text, std::string_view origin, std::string_view what);
nlohmann::ordered_json parse_ordered_json_input(std::string_view text, std::string_view origin, std::string_view what);

// A JSON value for a message: its first `limit` characters of compact JSON (`[[[[...`), never
// the whole of a large or deep value.
std::string quote_json(const nlohmann::json& value, std::size_t limit = 40);
std::string quote_json(const nlohmann::ordered_json& value, std::size_t limit = 40);

}  // namespace rooftop
