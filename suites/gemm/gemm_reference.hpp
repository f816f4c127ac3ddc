#pragma once
// The GEMM reference: double-precision dot products compared with the output, with an
// error bound per dtype. Every element on small shapes, a seeded sample on large ones.
#include <cstdint>
#include <span>
#include <string>

#include "harness/dtype.hpp"
#include "harness/problem.hpp"
#include "suites/gemm/element_reference.hpp"
#include "suites/gemm/gemm_problem.hpp"

namespace rooftop::gemm {

// Row-major A[M,K], B[K,N], C[M,N], in the storage of `dtype` (int8: C is int32).
struct GemmOperands {
  Dtype dtype;
  GemmShape shape;
  const void* a;
  const void* b;
  const void* c;
};

// Shapes up to this many multiply-adds are checked on every element.
inline constexpr double kFullCheckLimit = 1 << 27;
inline constexpr int kSampledElements = 2048;

Correctness check_gemm(const GemmOperands& operands, std::uint64_t seed);

// The allowed |out - ref| of one element: u_out |ref| (rounding of the output) +
// gamma sum|a b| (f32 accumulation, a probabilistic bound that a missing or doubled term
// exceeds) + input sqrt(sum (a b)^2) (inputs rounded inside the unit, tf32) + absolute.
struct GemmTolerance {
  double u_out = 0, gamma = 0, input = 0, absolute = 0;
  std::string formula;
};
GemmTolerance gemm_tolerance(Dtype dtype, std::int64_t k);

// Judges the elements against gemm_tolerance; `unwritten` elements still held the poison.
Correctness judge_elements(Dtype dtype, std::int64_t k, std::span<const ElementReference> elements,
                           std::uint64_t total, std::uint64_t unwritten);
// The value the output should be poisoned with before a run (NaN, or INT32_MIN for int8).
void poison_output(Dtype dtype, void* c, std::int64_t elements);

}  // namespace rooftop::gemm
