#pragma once
// y[m][n] = x[m][:] . W[n][:] for the few rows of a decode step: each weight row is read
// once from memory and used for every row of x while it is in L1, so the step runs at the
// memory's bandwidth (oneDNN's matmul, built for larger M, reached about half of it on a
// GEMV here: docs/PERFORMANCE.md). Vectorised for AVX-512, AVX2 or plain x86-64, picked
// at run time.
#include <cstdint>

#include "harness/dtype.hpp"

namespace rooftop::inference {

// x [m, k] and W [n, k] in `dtype` (fp32 or bf16), y [m, n] fp32.
void gemv_rows(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k, const void* x, const void* w, float* y);

}  // namespace rooftop::inference
