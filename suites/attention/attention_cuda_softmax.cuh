#pragma once
// The unfused CUDA path's middle step: a row-wise softmax over materialised fp32 scores,
// written as probabilities in the input type for the second product.
#include <cstdint>

#include "harness/dtype.hpp"

namespace rooftop::attention {

// rows = B x Hq x Sq rows of `skv` scores; row r is query r % sq. Causal: key j > i + skv - sq
// gets probability 0. Queued on gpu::stream().
void launch_softmax_rows(Dtype out_dtype, const float* scores, void* probabilities, std::int64_t rows,
                         std::int64_t sq, std::int64_t skv, bool causal);

}  // namespace rooftop::attention
