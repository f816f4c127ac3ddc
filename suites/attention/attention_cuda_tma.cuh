#pragma once
// Hopper's asynchronous data movement for the warp-specialised prefill (sm_90a): the tensor
// memory accelerator (TMA) copying a box of a global tensor into shared memory, mbarriers that
// count its bytes and the consumers' releases, named barriers for the consumers' turns, and
// setmaxnreg to move registers from the producer warpgroup to the consumers.
#include <cuda.h>

#include <cstdint>

#include "suites/attention/attention_cuda_tensor_core.cuh"

namespace rooftop::attention::tma {

using tensor_core::smem_address;

__device__ inline void barrier_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(bar)), "r"(count));
}
// Makes the initialised barriers visible to the TMA unit and the other threads.
__device__ inline void barrier_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }

// One arrival that also says `bytes` are on their way (the TMA completes them).
__device__ inline void arrive_expect_bytes(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_address(bar)), "r"(bytes)
               : "memory");
}
__device__ inline void arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_address(bar)) : "memory");
}
// Waits until the phase of parity `parity` has completed. A fresh barrier is in phase 0, so
// waiting on parity 1 (the phase before it) returns at once: the producer's first pass.
__device__ inline void wait(std::uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(smem_address(bar)),
      "r"(parity)
      : "memory");
}

// Box (c0, c1, c2) of a rank-3 tensor map into shared memory; `bar` receives its bytes.
__device__ inline void load_box(void* dst, const CUtensorMap& map, int c0, int c1, int c2, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(smem_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(c0), "r"(c1), "r"(c2), "r"(smem_address(bar))
      : "memory");
}

// Named barrier `id` (1..15; 0 is __syncthreads) over `threads` threads: sync waits, arrive
// does not.
__device__ inline void named_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ inline void named_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Each thread of the warpgroup gives up (dec) or claims (inc) registers, up to N a thread.
template <int N>
__device__ inline void release_registers() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N>
__device__ inline void claim_registers() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

}  // namespace rooftop::attention::tma
