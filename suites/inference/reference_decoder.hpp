#pragma once
// The decoder in double precision, the plainest way: every position recomputed from the
// token ids, no cache, weights widened from their dtype. What the CPU and GPU decoders are
// checked against. fp8 projections are emulated as the GPU computes them: the input
// rounded to bf16 (as activations are stored), quantised with its static scale, the e4m3
// products summed, the sum scaled by both scales.
#include <cstdint>
#include <span>
#include <vector>

#include "suites/inference/decoder_weights.hpp"

namespace rooftop::inference {

// The logits of the last position of `tokens` (one sequence), through the first `layers`
// layers (all: -1), then the final norm and the LM head. `rope_frequencies`: the rotary
// embedding's inverse frequencies, the config's (rope_inverse_frequencies) when empty (a test
// gives another implementation's, rounded as it rounds them).
std::vector<double> reference_logits(const DecoderWeights& weights, const std::vector<std::int32_t>& tokens,
                                     std::int64_t layers = -1, std::span<const double> rope_frequencies = {});

// fp8 weights: sets each projection's input scale, in the order a forward meets them, so
// that the largest magnitude its input takes over `tokens` maps to e4m3's 448.
void calibrate_fp8_input_scales(DecoderWeights& weights, const std::vector<std::int32_t>& tokens);

// The scale's reciprocal as every fp8 path multiplies by it (in float): one definition, so
// the GPU's quantised activations and the reference's are the same values.
inline float fp8_inverse_scale(float scale) { return 1.0f / scale; }

}  // namespace rooftop::inference
