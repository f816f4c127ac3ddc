#pragma once
// cuBLASLt, loaded at run time: the binary starts and the CPU suites run on a machine
// without it (540 MB, too large to carry everywhere); the CUDA backend says where it looked.
#include <cublasLt.h>

#include <string>

namespace rooftop::gpu {

#define ROOFTOP_CUBLASLT_FUNCTIONS(X)                                                                   \
  X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetVersion) X(cublasLtGetStatusString)                \
  X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) X(cublasLtMatmulDescSetAttribute)            \
  X(cublasLtMatrixLayoutCreate) X(cublasLtMatrixLayoutDestroy) X(cublasLtMatrixLayoutSetAttribute) X(cublasLtMatmulPreferenceCreate)        \
  X(cublasLtMatmulPreferenceDestroy) X(cublasLtMatmulPreferenceSetAttribute)                            \
  X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmul) X(cublasLtMatmulAlgoConfigGetAttribute)

struct CublasLtApi {
#define ROOFTOP_DECLARE(name) decltype(&::name) name = nullptr;
  ROOFTOP_CUBLASLT_FUNCTIONS(ROOFTOP_DECLARE)
#undef ROOFTOP_DECLARE
  std::string path;  // the file it was loaded from
};

// The loaded library; throws PointSkipped naming the places searched when it is absent.
// Searched: $ROOFTOP_CUBLASLT, the bundle's lib/, the loader's path, $CUDA_HOME/lib64,
// /usr/local/cuda/lib64.
const CublasLtApi& cublaslt();

void check_cublas(cublasStatus_t status, const char* call, const char* file, int line);
#define ROOFTOP_CUBLAS_CHECK(call) ::rooftop::gpu::check_cublas((call), #call, __FILE__, __LINE__)

}  // namespace rooftop::gpu
