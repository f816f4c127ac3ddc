#pragma once
// The decoder against the double-precision reference: a short prompt through the model (or,
// for a large one, a 2-layer slice of it with the real final norm and LM head), the last
// position's logits within a bound that fits the dtype, and the same greedy tokens for
// the steps after it wherever the reference's top-2 gap is wider than that bound.
#include <cstdint>

#include "harness/problem.hpp"
#include "suites/inference/decoder.hpp"

namespace rooftop::inference {

// The allowed |logit - reference| as a fraction of the largest |reference logit|.
double logit_tolerance(Dtype dtype);

// The decoder `make` builds (on any backend) against the reference, on `weights`.
Correctness check_decoder(const DecoderWeights& weights, std::int64_t batch, std::uint64_t seed, const DecoderFactory& make);
// The layers check_decoder runs (the first ones of the model): what a check needs of the weights.
inline constexpr std::int64_t kCheckLayers = 2;
// The same, for the CPU decoder.
Correctness check_cpu_decoder(const DecoderWeights& weights, std::int64_t batch, std::uint64_t seed);

}  // namespace rooftop::inference
