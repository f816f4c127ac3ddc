#pragma once
// AMD's GEMM libraries (hipBLASLt, rocBLAS), looked for at run time as cuBLASLt is: the
// binary starts and the CPU suites run where ROCm's math libraries are absent.
#include <string>

namespace rooftop::gpu {

struct GemmLibrary {
  std::string name;  // "hipBLASLt" or "rocBLAS"
  std::string path;  // the file it was loaded from
};

// The first of hipBLASLt, rocBLAS that loads; throws PointSkipped naming the places
// searched when neither does. Searched: $ROOFTOP_HIPBLASLT / $ROOFTOP_ROCBLAS, the bundle's
// lib/, the loader's path, $ROCM_PATH/lib, /opt/rocm/lib.
const GemmLibrary& amd_gemm_library();

}  // namespace rooftop::gpu
