#pragma once
// wgmma (sm_90a) for the Hopper prefill kernel: one warpgroup's m64 x N x k16 product with
// fp32 accumulators, A from a shared-memory descriptor (SS) or from registers (RS), B from a
// descriptor. The accumulator operand lists are long: one macro writes each form for every
// N and input type, here and nowhere else.
#include <cstdint>
#include <type_traits>

#include "devices/cuda/vendors/gpu.hpp"

namespace rooftop::attention::wgmma {

// A shared-memory matrix descriptor for the 128-byte swizzle: the start address, the
// leading and stride byte offsets (each in 16-byte units) and the layout type in bits 62-63.
__device__ inline std::uint64_t descriptor(unsigned address, unsigned leading_bytes, unsigned stride_bytes) {
  return static_cast<std::uint64_t>((address & 0x3FFFF) >> 4) | static_cast<std::uint64_t>(leading_bytes >> 4) << 16 |
         static_cast<std::uint64_t>(stride_bytes >> 4) << 32 | std::uint64_t{1} << 62;
}

// Orders this thread's register writes before the next wgmma reads them.
__device__ inline void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ inline void commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ inline void wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Shared-memory writes by this thread (cp.async, stores) made visible to wgmma's reads.
__device__ inline void fence_shared_for_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// Keeps registers that an in-flight wgmma reads or writes where they are until this point:
// the compiler sees them used here, after the wait.
template <class E, int N, int M>
__device__ inline void hold(E (&r)[N][M]) {
  static_assert(std::is_same_v<E, float> || std::is_same_v<E, unsigned>);
#pragma unroll
  for (int i = 0; i < N; ++i)
#pragma unroll
    for (int j = 0; j < M; ++j) {
      if constexpr (std::is_same_v<E, float>)
        asm volatile("" : "+f"(r[i][j])::"memory");
      else
        asm volatile("" : "+r"(r[i][j])::"memory");
    }
}

// The accumulator operands of an m64nNk16 product, d[N/8][4], read and written.
#define ROOFTOP_WGMMA_ROW(i) "+f"(d[i][0]), "+f"(d[i][1]), "+f"(d[i][2]), "+f"(d[i][3])
#define ROOFTOP_WGMMA_D64                                                                                     \
  ROOFTOP_WGMMA_ROW(0), ROOFTOP_WGMMA_ROW(1), ROOFTOP_WGMMA_ROW(2), ROOFTOP_WGMMA_ROW(3),                     \
      ROOFTOP_WGMMA_ROW(4), ROOFTOP_WGMMA_ROW(5), ROOFTOP_WGMMA_ROW(6), ROOFTOP_WGMMA_ROW(7)
#define ROOFTOP_WGMMA_D128                                                                                    \
  ROOFTOP_WGMMA_D64, ROOFTOP_WGMMA_ROW(8), ROOFTOP_WGMMA_ROW(9), ROOFTOP_WGMMA_ROW(10),                       \
      ROOFTOP_WGMMA_ROW(11), ROOFTOP_WGMMA_ROW(12), ROOFTOP_WGMMA_ROW(13), ROOFTOP_WGMMA_ROW(14),             \
      ROOFTOP_WGMMA_ROW(15)
#define ROOFTOP_WGMMA_REGS64 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define ROOFTOP_WGMMA_REGS128 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"

// One specialization: TYPE names the inputs in the instruction ("bf16"); A0-A5 are the
// operand numbers that follow the accumulator's N / 2.
#define ROOFTOP_WGMMA_MMA(T, TYPE, N, A0, A1, A2, A3, A4, A5)                                                 \
  template <>                                                                                                 \
  struct Mma<T, N> {                                                                                          \
    /* d (+)= A B with A, B in shared memory, both K-major; `accumulate` 0 overwrites d. */                   \
    __device__ static void ss(float (&d)[N / 8][4], std::uint64_t a, std::uint64_t b, int accumulate) {       \
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #A2 ", 0;\n"                                          \
                   "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " " ROOFTOP_WGMMA_REGS##N  \
                   ", %" #A0 ", %" #A1 ", p, 1, 1, 0, 0;\n}\n"                                                \
                   : ROOFTOP_WGMMA_D##N                                                                       \
                   : "l"(a), "l"(b), "r"(accumulate));                                                        \
    }                                                                                                         \
    /* d += A B with A in registers (the m16n8k16 A layout per warp) and B MN-major in shared memory. */      \
    __device__ static void rs(float (&d)[N / 8][4], const unsigned (&a)[4], std::uint64_t b) {                \
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #A5 ", 0;\n"                                          \
                   "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " " ROOFTOP_WGMMA_REGS##N  \
                   ", {%" #A0 ", %" #A1 ", %" #A2 ", %" #A3 "}, %" #A4 ", p, 1, 1, 1;\n}\n"                   \
                   : ROOFTOP_WGMMA_D##N                                                                       \
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "n"(1));                             \
    }                                                                                                         \
  }

template <class T, int N>
struct Mma;
ROOFTOP_WGMMA_MMA(__nv_bfloat16, "bf16", 64, 32, 33, 34, 35, 36, 37);
ROOFTOP_WGMMA_MMA(__nv_bfloat16, "bf16", 128, 64, 65, 66, 67, 68, 69);
ROOFTOP_WGMMA_MMA(__half, "f16", 64, 32, 33, 34, 35, 36, 37);
ROOFTOP_WGMMA_MMA(__half, "f16", 128, 64, 65, 66, 67, 68, 69);

}  // namespace rooftop::attention::wgmma
