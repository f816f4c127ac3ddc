#include "suites/inference/cuda_peer_all_reduce.cuh"

#include "devices/cuda/gpu_runtime.hpp"
#include "suites/inference/cuda_pdl.cuh"

namespace rooftop::inference::kernels {
namespace {

constexpr int kThreads = 512;
// One SM's bulk prefetches move a few hundred GB/s: spread over this many, a prefetch of
// 16 MiB left the 8B's tp2 step as fast as none (measured; from one block each MiB cost
// 3.5 to 3.9 us a call).
constexpr int kPrefetchBlocks = 32;

// One element with its call's epoch, in one 8-byte access (single-copy atomic): the reader
// knows the value is this call's when the epoch beside it is.
__device__ void store_tagged(std::uint64_t* at, float value, std::uint32_t epoch) {
  asm volatile("st.volatile.global.v2.u32 [%0], {%1, %2};" ::"l"(at), "r"(__float_as_uint(value)), "r"(epoch) : "memory");
}

__device__ uint2 load_tagged(const std::uint64_t* at) {
  uint2 w;
  asm volatile("ld.volatile.global.v2.u32 {%0, %1}, [%2];" : "=r"(w.x), "=r"(w.y) : "l"(at) : "memory");
  return w;
}

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Chunk i of the range is asked for by prefetching thread i (of `threads`), block-major so
// that every block gets its share; the requests complete after the kernel does.
__device__ void prefetch_share(L2Prefetch p, unsigned thread, unsigned threads) {
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

// A programmatic dependent launch: the o_proj or down GEMV before it lets it start early, and
// it lets the projection after it start at once, whose weight loads then overlap the wait.
// Blocks [0, kPeerBlocks) reduce; those past them (where asked) prefetch. Each element goes
// to every peer with this call's epoch beside it in one store (NCCL's LL protocol, in one
// shot): no barrier, no fence, each reader waits for its own elements alone. A thread sums
// the elements it wrote, in rank order. The halves alternate by epoch: a rank writes epoch
// e's half again at e + 2, after it has read every peer's e + 1, which each peer wrote only
// after its kernel of epoch e (and its reads of that half) had ended.
__global__ void __launch_bounds__(kThreads) peer_all_reduce_kernel(PeerBuffers peers, int ranks, int rank, float* data,
                                                                   std::size_t count, std::size_t capacity,
                                                                   std::uint32_t* epochs, std::uint64_t timeout_ns,
                                                                   L2Prefetch prefetch) {
  pdl_allow_next();
  if (blockIdx.x >= kPeerBlocks) {  // constant weights: no need to wait for the kernel before
    prefetch_share(prefetch, threadIdx.x * (gridDim.x - kPeerBlocks) + (blockIdx.x - kPeerBlocks),
                   (gridDim.x - kPeerBlocks) * blockDim.x);
    return;
  }
  pdl_wait();  // for the partial sums, and for the last call's epochs
  __shared__ std::uint32_t epoch_shared;
  if (threadIdx.x == 0) epoch_shared = epochs[blockIdx.x] + 1;
  __syncthreads();
  const std::uint32_t epoch = epoch_shared;
  const std::size_t half = (epoch & 1u) * static_cast<std::size_t>(ranks) * capacity;
  const std::size_t first = blockIdx.x * blockDim.x + threadIdx.x, stride = kPeerBlocks * blockDim.x;
  for (std::size_t i = first; i < count; i += stride)
    for (int q = 0; q < ranks; ++q)
      if (q != rank) store_tagged(peers.data[q] + half + static_cast<std::size_t>(rank) * capacity + i, data[i], epoch);
  const std::uint64_t start = global_ns();
  for (std::size_t i = first; i < count; i += stride) {
    float sum = 0;
    for (int q = 0; q < ranks; ++q) {
      if (q == rank) {
        sum += data[i];
        continue;
      }
      const std::uint64_t* at = peers.data[rank] + half + static_cast<std::size_t>(q) * capacity + i;
      uint2 w = load_tagged(at);
      for (unsigned spins = 1; w.y != epoch; ++spins) {
        if (spins % 1024 == 0 && global_ns() - start > timeout_ns) __trap();  // a peer never came
        w = load_tagged(at);
      }
      sum += __uint_as_float(w.x);
    }
    data[i] = sum;
  }
  __syncthreads();  // every thread has read the epoch
  if (threadIdx.x == 0) epochs[blockIdx.x] = epoch;
}

}  // namespace

void peer_all_reduce(const PeerBuffers& peers, int ranks, int rank, float* data, std::size_t count,
                     std::size_t capacity, std::uint32_t* epochs, std::uint64_t timeout_ns, L2Prefetch prefetch) {
  const int blocks = kPeerBlocks + (prefetch.bytes && l2_prefetch_supported() ? kPrefetchBlocks : 0);
  launch_pdl(peer_all_reduce_kernel, blocks, kThreads, 0, peers, ranks, rank, data, count, capacity, epochs, timeout_ns,
             prefetch);
  ROOFTOP_GPU_CHECK_LAUNCH("peer_all_reduce");
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
