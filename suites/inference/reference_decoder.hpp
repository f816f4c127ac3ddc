#pragma once
// The decoder in double precision, the plainest way: every position recomputed from the
// token ids, no cache, weights widened from their dtype. What the CPU and GPU decoders are
// checked against.
#include <cstdint>
#include <vector>

#include "suites/inference/decoder_weights.hpp"

namespace rooftop::inference {

// The logits of the last position of `tokens` (one sequence), through the first `layers`
// layers (all: -1), then the final norm and the LM head.
std::vector<double> reference_logits(const DecoderWeights& weights, const std::vector<std::int32_t>& tokens,
                                     std::int64_t layers = -1);

}  // namespace rooftop::inference
