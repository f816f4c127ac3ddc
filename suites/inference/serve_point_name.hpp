#pragma once
// A serve point's name (issue 52, N6): the rate, the measured requests and the lengths, then
// every option of the load that differs from its default, so two loads never share a
// benchmark name (a baseline made at batch=64 gated a run at batch=8 as the same benchmark),
// and a load of default options keeps the name it always had.
#include <string>

#include "suites/inference/serve_load.hpp"

namespace rooftop::inference {

// "r8_n512_chat", "r40_n24_fixed16-6_window0", "r4_n64_file-1a2b3c4d_batch8_cache4096": a
// '.' in a number as 'p'; a lengths file by a digest of its pairs in order (the same pairs
// give the same name wherever the file lies; an edited file another). Reads the lengths
// file (InputError as read_lengths_file).
std::string serve_point_slug(const ServeLoad& load);

}  // namespace rooftop::inference
