#pragma once
// AMD's GEMM libraries (rocBLAS, hipBLASLt), looked for at run time as cuBLASLt is: the
// binary starts and the CPU suites run where ROCm's math libraries are absent.
#include <string>
#include <vector>

namespace rooftop::gpu {

struct GemmLibrary {
  std::string name;                           // "rocBLAS" or "hipBLASLt"
  std::string path;                           // the file it was loaded from
  void* handle = nullptr;                     // dlopen's, kept open for the process
  std::vector<std::string> rocblas_searched;  // where rocBLAS was looked for
};

// rocBLAS (whose gemm_ex rooftop calls) if it loads, else hipBLASLt (found, to say so);
// throws PointSkipped naming the places searched when neither does. Searched:
// $ROOFTOP_ROCBLAS / $ROOFTOP_HIPBLASLT, the bundle's lib/, the loader's path,
// $ROCM_PATH/lib, /opt/rocm/lib.
const GemmLibrary& amd_gemm_library();

}  // namespace rooftop::gpu
