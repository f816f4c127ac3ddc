#pragma once
// The vendor's management library, opened at run time: clocks, power and energy beside the
// samples. NVML for CUDA, ROCm SMI for HIP; both have the same interface.
#include "devices/cuda/vendors/gpu.hpp"
#if defined(ROOFTOP_HIP)
#include "devices/hip/rocm_smi.hpp"
namespace rooftop::gpu {
using DeviceMonitor = RocmSmi;
}
#else
#include "devices/cuda/nvml.hpp"
namespace rooftop::gpu {
using DeviceMonitor = Nvml;
}
#endif
