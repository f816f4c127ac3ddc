#include "devices/hip/vendor_gemm_library.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "devices/cuda/dynamic_library.hpp"
#include "harness/errors.hpp"

namespace rooftop::gpu {
namespace {

GemmLibrary load() {
  const auto rocblas = rocm_library_places("ROOFTOP_ROCBLAS", {"librocblas.so.0", "librocblas.so.4", "librocblas.so.3"});
  const auto hipblaslt = rocm_library_places("ROOFTOP_HIPBLASLT", {"libhipblaslt.so.0", "libhipblaslt.so.1"});
  GemmLibrary found;
  found.rocblas_searched = rocblas;
  // rocBLAS first: its gemm_ex is the one rooftop calls, whichever else is installed.
  if ((found.handle = open_first(rocblas, found.path))) {
    found.name = "rocBLAS";
    return found;
  }
  if ((found.handle = open_first(hipblaslt, found.path))) {
    found.name = "hipBLASLt";
    return found;
  }
  std::vector<std::string> searched = rocblas;
  searched.insert(searched.end(), hipblaslt.begin(), hipblaslt.end());
  throw PointSkipped(fmt::format("neither rocBLAS nor hipBLASLt found (searched: {}); install ROCm's rocblas, or "
                                 "set ROOFTOP_ROCBLAS to the file",
                                 fmt::join(searched, ", ")));
}

}  // namespace

const GemmLibrary& amd_gemm_library() {
  static const GemmLibrary library = load();  // a failed load throws and is retried next time
  return library;
}

}  // namespace rooftop::gpu
