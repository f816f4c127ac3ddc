#pragma once
// One output element of a GEMM beside its double-precision reference, computed elsewhere (a
// GPU); apart from gemm_reference.hpp so GPU kernel sources include no JSON (gemm_shape.hpp).
#include <cstdint>

namespace rooftop::gemm {

struct ElementReference {
  std::int64_t i = 0, j = 0;
  double got = 0, ref = 0, abs_sum = 0, sq_sum = 0;
};

}  // namespace rooftop::gemm
