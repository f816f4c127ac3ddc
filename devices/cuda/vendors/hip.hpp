#pragma once
// HIP/ROCm: the CUDA names rooftop's GPU code uses, mapped onto HIP's (ROCm 5.2 and later).
#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#define ROOFTOP_GPU_VENDOR "HIP"
#define ROOFTOP_GPU_BACKEND "hip"  // the backend's name on the command line and in results
#define ROOFTOP_GPU_DEVICE_WORDS "AMD GPU (HIP device)"
// Capabilities the shared sources test; absent here: no fp8 type before ROCm 6 (and no fp8
// units on gfx90a/gfx908), and mma.sync/ldmatrix/cp.async/wgmma/TMA are NVIDIA PTX.
#define ROOFTOP_GPU_HAS_FP8 0
#define ROOFTOP_GPU_HAS_MMA_SYNC 0

// Lanes of a wavefront: 64 on the CDNA parts this build targets (gfx90a, gfx908). Device
// code compiled for a wave32 part would see its own size in __AMDGCN_WAVEFRONT_SIZE.
#if defined(__AMDGCN_WAVEFRONT_SIZE)
inline constexpr int kGpuWarpSize = __AMDGCN_WAVEFRONT_SIZE;
#else
inline constexpr int kGpuWarpSize = 64;
#endif

// The *_sync shuffles' mask of every lane: HIP's wavefront runs in lockstep and ignores it.
inline constexpr unsigned long long kFullMask = ~0ull;

#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaErrorInsufficientDriver hipErrorInsufficientDriver
#define cudaErrorNoDevice hipErrorNoDevice
#define cudaErrorNotReady hipErrorNotReady
#define cudaGetErrorString hipGetErrorString
#define cudaGetErrorName hipGetErrorName
#define cudaGetLastError hipGetLastError
#define cudaGetDevice hipGetDevice
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaDeviceProp hipDeviceProp_t
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDevAttrClockRate hipDeviceAttributeClockRate
#define cudaDevAttrMemoryClockRate hipDeviceAttributeMemoryClockRate
#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cudaDevAttrComputeCapabilityMajor hipDeviceAttributeComputeCapabilityMajor
#define cudaDevAttrComputeCapabilityMinor hipDeviceAttributeComputeCapabilityMinor
#define cudaDeviceGetPCIBusId hipDeviceGetPCIBusId
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaDriverGetVersion hipDriverGetVersion
#define cudaRuntimeGetVersion hipRuntimeGetVersion
#define cudaSetDevice hipSetDevice
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaMallocHost hipHostMalloc
#define cudaFreeHost hipHostFree
#define cudaMemGetInfo hipMemGetInfo
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaMemset hipMemset
#define cudaMemsetAsync hipMemsetAsync
#define cudaStream_t hipStream_t
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaStreamQuery hipStreamQuery
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaEvent_t hipEvent_t
#define cudaEventCreate hipEventCreate
#define cudaEventDestroy hipEventDestroy
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaFuncAttributes hipFuncAttributes
#define cudaFuncGetAttributes hipFuncGetAttributes
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
#define cudaGraph_t hipGraph_t
#define cudaGraphExec_t hipGraphExec_t
#define cudaStreamBeginCapture hipStreamBeginCapture
#define cudaStreamEndCapture hipStreamEndCapture
#define cudaStreamCaptureModeThreadLocal hipStreamCaptureModeThreadLocal
#define cudaGraphGetNodes hipGraphGetNodes
#define cudaGraphInstantiate(exec, graph, flags) hipGraphInstantiate(exec, graph, nullptr, nullptr, 0)
#define cudaGraphLaunch hipGraphLaunch
#define cudaGraphExecDestroy hipGraphExecDestroy
#define cudaGraphDestroy hipGraphDestroy

// bf16: ROCm 5.2's type is hip_bfloat16 (converting to and from float, rounding to nearest).
// Host code compiled by g++ sees it as a plain struct of 16 bits.
using __nv_bfloat16 = hip_bfloat16;

#if defined(__HIPCC__)
__host__ __device__ inline hip_bfloat16 __float2bfloat16(float v) { return hip_bfloat16(v); }
__host__ __device__ inline float __bfloat162float(hip_bfloat16 v) { return static_cast<float>(v); }

// Nanoseconds from the GPU's constant-rate wall clock (100 MHz on CDNA).
// ROCm 5.2 declares wall_clock64 for the device pass only.
__device__ inline unsigned long long gpu_global_ns() {
#if defined(__HIP_DEVICE_COMPILE__)
  return static_cast<unsigned long long>(wall_clock64()) * 10ull;
#else
  return 0;
#endif
}

// CUDA's "cache globally" load: CDNA's plain load already goes through L2.
template <class T>
__device__ inline T __ldcg(const T* p) {
  return *p;
}
// The *_sync shuffles: a wavefront runs its lanes in lockstep, so the mask has no HIP
// counterpart (ROCm 5.2 has no *_sync forms); every caller passes the full mask.
template <class T>
__device__ inline T __shfl_xor_sync(unsigned long long, T v, int lane_mask, int width = kGpuWarpSize) {
  return __shfl_xor(v, lane_mask, width);
}
template <class T>
__device__ inline T __shfl_down_sync(unsigned long long, T v, unsigned delta, int width = kGpuWarpSize) {
  return __shfl_down(v, delta, width);
}
#endif
