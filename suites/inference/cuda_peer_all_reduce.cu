#include "suites/inference/cuda_peer_all_reduce.cuh"

#include <type_traits>

#include "devices/cuda/gpu_runtime.hpp"

namespace rooftop::inference::kernels {
namespace {

constexpr int kThreads = 512;
constexpr int kPrefetchThreads = 256;

__device__ void store_release_system(std::uint32_t* at, std::uint32_t value) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(at), "r"(value) : "memory");
}

__device__ std::uint32_t load_acquire_system(const std::uint32_t* at) {
  std::uint32_t value;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(value) : "l"(at) : "memory");
  return value;
}

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Each thread asks for its chunks of the range; the requests complete after the kernel does.
__device__ void prefetch_share(L2Prefetch p, int thread, int threads) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr std::size_t kPrefetchChunk = 64 << 10;  // bytes a bulk prefetch asks for
  const auto base = reinterpret_cast<std::uintptr_t>(p.begin) & ~std::uintptr_t{15};
  const std::size_t bytes = (p.bytes + 15) & ~std::size_t{15};
  for (std::size_t at = static_cast<std::size_t>(thread) * kPrefetchChunk; at < bytes;
       at += static_cast<std::size_t>(threads) * kPrefetchChunk) {
    const auto size = static_cast<std::uint32_t>(bytes - at < kPrefetchChunk ? bytes - at : kPrefetchChunk);
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(base + at), "r"(size) : "memory");
  }
#else
  (void)p, (void)thread, (void)threads;
#endif
}

__global__ void l2_prefetch_kernel(L2Prefetch p) { prefetch_share(p, threadIdx.x, blockDim.x); }

// Blocks [0, kPeerBlocks) each reduce one slice; a block past them (where asked) prefetches.
// Push, then one barrier: block b writes its slice into slot `rank` of every rank's buffer,
// signals each rank's flag [b][rank] with its epoch (release, system scope: the writes
// before it are visible first), waits for every rank's signal on its own flags (acquire),
// then sums its slots locally. The halves alternate by epoch: a rank reaches epoch e + 2,
// which writes e's half again, only after every rank has finished the kernel of epoch e.
template <bool Vector>
__global__ void __launch_bounds__(kThreads) peer_all_reduce_kernel(PeerBuffers peers, int ranks, int rank, float* data,
                                                                   std::size_t count, std::size_t capacity,
                                                                   std::uint32_t* epochs, std::uint64_t timeout_ns,
                                                                   L2Prefetch prefetch) {
  const int b = blockIdx.x;
  if (b >= kPeerBlocks) {
    prefetch_share(prefetch, threadIdx.x, blockDim.x);
    return;
  }
  __shared__ std::uint32_t epoch_shared;
  if (threadIdx.x == 0) epoch_shared = epochs[b] + 1;
  __syncthreads();
  const std::uint32_t epoch = epoch_shared;
  const std::size_t half = (epoch & 1u) * static_cast<std::size_t>(ranks) * capacity;
  constexpr std::size_t kWidth = Vector ? 4 : 1;
  const std::size_t units = count / kWidth, per = (units + kPeerBlocks - 1) / kPeerBlocks;
  const std::size_t lo = per * b < units ? per * b : units, hi = lo + per < units ? lo + per : units;
  using Unit = std::conditional_t<Vector, float4, float>;
  auto* mine = reinterpret_cast<Unit*>(data);
  for (std::size_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    const Unit v = mine[i];
    for (int q = 0; q < ranks; ++q)
      reinterpret_cast<Unit*>(peers.data[q] + half + static_cast<std::size_t>(rank) * capacity)[i] = v;
  }
  __syncthreads();
  if (threadIdx.x < ranks) {
    const int q = threadIdx.x;
    store_release_system(peers.flags[q] + b * kPeerMaxRanks + rank, epoch);
    const std::uint32_t* flag = peers.flags[rank] + b * kPeerMaxRanks + q;
    const std::uint64_t start = global_ns();
    // A peer is at most one epoch ahead; the difference survives the counter's wrap.
    while (static_cast<std::int32_t>(load_acquire_system(flag) - epoch) < 0)
      if (global_ns() - start > timeout_ns) __trap();
  }
  __syncthreads();
  for (std::size_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    Unit sum = reinterpret_cast<const Unit*>(peers.data[rank] + half)[i];
    for (int q = 1; q < ranks; ++q) {
      const Unit v = reinterpret_cast<const Unit*>(peers.data[rank] + half + static_cast<std::size_t>(q) * capacity)[i];
      if constexpr (Vector) {
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
      } else {
        sum += v;
      }
    }
    mine[i] = sum;
  }
  if (threadIdx.x == 0) epochs[b] = epoch;
}

}  // namespace

void peer_all_reduce(const PeerBuffers& peers, int ranks, int rank, float* data, std::size_t count,
                     std::size_t capacity, std::uint32_t* epochs, std::uint64_t timeout_ns, L2Prefetch prefetch,
                     cudaStream_t stream) {
  const int blocks = kPeerBlocks + (prefetch.bytes && l2_prefetch_supported() ? 1 : 0);
  // float4 where every slot stays 16-byte aligned: the count and the capacity multiples of 4.
  if (count % 4 == 0 && capacity % 4 == 0 && reinterpret_cast<std::uintptr_t>(data) % 16 == 0)
    peer_all_reduce_kernel<true><<<blocks, kThreads, 0, stream>>>(peers, ranks, rank, data, count, capacity, epochs,
                                                                  timeout_ns, prefetch);
  else
    peer_all_reduce_kernel<false><<<blocks, kThreads, 0, stream>>>(peers, ranks, rank, data, count, capacity, epochs,
                                                                   timeout_ns, prefetch);
  ROOFTOP_GPU_CHECK_LAUNCH("peer_all_reduce");
}

void l2_prefetch(L2Prefetch prefetch, cudaStream_t stream) {
  if (!prefetch.bytes || !l2_prefetch_supported()) return;
  l2_prefetch_kernel<<<1, kPrefetchThreads, 0, stream>>>(prefetch);
  ROOFTOP_GPU_CHECK_LAUNCH("l2_prefetch");
}

bool l2_prefetch_supported() {
  static const bool supported = [] {
    int device = 0, major = 0;
    ROOFTOP_GPU_CHECK(cudaGetDevice(&device));
    ROOFTOP_GPU_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return major >= 9;
  }();
  return supported;
}

}  // namespace rooftop::inference::kernels
