#pragma once
// NCCL (RCCL in a HIP build: the same API), loaded at run time like cuBLASLt: the binary
// runs where it is absent, and finds it where PyTorch's wheel or a CUDA or ROCm install put it.
#include "devices/cuda/vendors/gpu.hpp"
#if defined(ROOFTOP_HIP)
#include "devices/hip/rccl_abi.hpp"  // RCCL: NCCL's API
#else
#include <nccl.h>
#endif

#include <string>

namespace rooftop::gpu {

#define ROOFTOP_NCCL_FUNCTIONS(X)                                                                 \
  X(ncclGetVersion) X(ncclGetUniqueId) X(ncclCommInitRank) X(ncclCommInitAll) X(ncclCommDestroy)  \
  X(ncclCommAbort) X(ncclCommGetAsyncError) X(ncclGetErrorString) X(ncclAllReduce) X(ncclAllGather) \
  X(ncclReduceScatter) X(ncclBroadcast) X(ncclReduce) X(ncclSend) X(ncclRecv) X(ncclGroupStart)   \
  X(ncclGroupEnd)

struct NcclApi {
#define ROOFTOP_DECLARE(name) decltype(&::name) name = nullptr;
  ROOFTOP_NCCL_FUNCTIONS(ROOFTOP_DECLARE)
#undef ROOFTOP_DECLARE
  std::string path;
};

// Searched: $ROOFTOP_NCCL, the bundle's lib/, the loader's path, $CUDA_HOME/lib64,
// /usr/local/cuda/lib64, and the nvidia-nccl Python wheels' lib/ folders. Throws
// DeviceUnavailable naming them when it is absent. HIP: $ROOFTOP_RCCL, the bundle's lib/,
// the loader's path, $ROCM_PATH/lib, /opt/rocm/lib.
const NcclApi& nccl();

void check_nccl(ncclResult_t result, const char* call, const char* file, int line);
#define ROOFTOP_NCCL_CHECK(call) ::rooftop::gpu::check_nccl((call), #call, __FILE__, __LINE__)

}  // namespace rooftop::gpu
