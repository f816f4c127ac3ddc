#pragma once
// The GEMM problem, C[M,N] = A[M,K] x B[K,N]: its work and the shape syntax
// (the tiers' shapes are in shapes/*.txt).
// The FLOP and byte counts of a GEMM live here and nowhere else.
#include <cstdint>
#include <string_view>
#include <vector>

#include "harness/dtype.hpp"
#include "harness/problem.hpp"
#include "suites/gemm/gemm_shape.hpp"

namespace rooftop::gemm {


Work gemm_work(const GemmShape& shape, Dtype dtype);
Problem make_gemm_problem(const GemmShape& shape, Dtype dtype, std::string_view backend, std::string_view set);
// "MxNxK", e.g. "2048x2048x2048"; throws InputError on anything else or a non-positive size.
GemmShape parse_gemm_shape(std::string_view text);
// The point's sizes, as make_gemm_problem attached them.
const GemmShape& shape_of(const Problem& problem);

}  // namespace rooftop::gemm
