#pragma once
// A GEMM's sizes, apart from the problem descriptor: GPU kernel sources include this and no
// JSON (hipcc's clang 15 crashes instantiating nlohmann::json in a device pass).
#include <cstdint>

namespace rooftop::gemm {

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
};

}  // namespace rooftop::gemm
