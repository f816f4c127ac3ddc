#pragma once
// y[m][n] = x[m][:] . W[n][:] for the few rows of a decode step: each weight row is read
// once from memory and used for every row of x while it is in L1, so the step runs at the
// memory's bandwidth (oneDNN's matmul, built for larger M, reached about half of it on a
// GEMV here: docs/PERFORMANCE.md). Vectorised for AVX-512, AVX2 or plain x86-64, picked
// at run time. Where oneDNN has no bf16 matmul (AVX2) it runs every matmul of the model.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include "harness/dtype.hpp"

namespace rooftop::cpu {

// x [m, k] and W [n, k] in `dtype` (fp32 or bf16), y [m, n] fp32.
void gemv_rows(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k, const void* x, const void* w, float* y);

// The copy gemv_rows runs here: "AVX-512", "AVX2" or "x86-64 without AVX2".
std::string gemv_isa_name();

// Whether `ours` (a GEMV call) runs faster here than `theirs` (oneDNN's for the same rows),
// each the best of 3 calls: the choice made once, before anything is timed, for a few rows.
template <class Ours, class Theirs>
bool gemv_is_faster(Ours&& ours, Theirs&& theirs) {
  const auto best_of = [](auto&& call) {
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      call();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
  };
  const double theirs_s = best_of(theirs);
  return best_of(ours) < theirs_s;
}

}  // namespace rooftop::cpu
