#include "devices/hip/vendor_gemm_library.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "devices/cuda/dynamic_library.hpp"
#include "harness/errors.hpp"

namespace rooftop::gpu {
namespace {

GemmLibrary load() {
  const auto hipblaslt = rocm_library_places("ROOFTOP_HIPBLASLT", {"libhipblaslt.so.0", "libhipblaslt.so.1"});
  const auto rocblas = rocm_library_places("ROOFTOP_ROCBLAS", {"librocblas.so.0", "librocblas.so.4", "librocblas.so.3"});
  GemmLibrary found;
  if (open_first(hipblaslt, found.path)) {
    found.name = "hipBLASLt";
    return found;
  }
  if (open_first(rocblas, found.path)) {
    found.name = "rocBLAS";
    return found;
  }
  std::vector<std::string> searched = hipblaslt;
  searched.insert(searched.end(), rocblas.begin(), rocblas.end());
  throw PointSkipped(fmt::format("neither hipBLASLt nor rocBLAS found (searched: {}); install ROCm's hipblaslt or "
                                 "rocblas, or set ROOFTOP_HIPBLASLT or ROOFTOP_ROCBLAS to the file",
                                 fmt::join(searched, ", ")));
}

}  // namespace

const GemmLibrary& amd_gemm_library() {
  static const GemmLibrary library = load();  // a failed load throws and is retried next time
  return library;
}

}  // namespace rooftop::gpu
