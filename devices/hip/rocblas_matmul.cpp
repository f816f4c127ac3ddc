#include "devices/hip/rocblas_matmul.hpp"

#include <fmt/format.h>

#include "devices/hip/vendor_gemm_library.hpp"
#include "harness/dtype.hpp"
#include "harness/errors.hpp"

namespace rooftop::gpu {
namespace {
[[noreturn]] void skip(Dtype dtype) {
  const auto& library = amd_gemm_library();  // throws, naming the places searched, when absent
  throw PointSkipped(fmt::format("{} found at {}, but this build has no {} GEMM path for {} yet (it was written "
                                 "without an AMD GPU to check it on)",
                                 library.name, library.path, library.name, dtype_name(dtype)));
}
}  // namespace

RocblasMatmul::RocblasMatmul(Dtype dtype, std::int64_t, std::int64_t, std::int64_t) { skip(dtype); }
RocblasMatmul::RocblasMatmul(Dtype dtype, const MatmulShape&) { skip(dtype); }

void RocblasMatmul::execute() { throw std::logic_error("RocblasMatmul::execute: no instance is ever made"); }
void RocblasMatmul::execute_on(const void*, const void*, void*, float, float) { execute(); }

double RocblasMatmul::device_bytes(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k) {
  const double in = input_size(dtype), out = input_size(dtype) == 1 ? 4 : input_size(dtype);
  return in * static_cast<double>(m * k + n * k) + out * static_cast<double>(m * n);
}

}  // namespace rooftop::gpu
