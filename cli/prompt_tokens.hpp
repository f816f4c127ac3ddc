#pragma once
// `run --prompt`: token ids given on the command line ("1,2,3") or in a file ("@ids.txt":
// ids separated by commas or white space, or a JSON array, or a JSON object with "prompt",
// as tests/data/hf/*/expected.json has).
#include <cstdint>
#include <string>
#include <vector>

namespace rooftop {

// Throws InputError naming the flag (and the file) on an unreadable file, a token that is
// not a non-negative integer below 2^31, or no token at all.
std::vector<std::int32_t> parse_prompt_tokens(const std::string& text);

}  // namespace rooftop
