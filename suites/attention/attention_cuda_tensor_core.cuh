#pragma once
// Device helpers shared by the tensor-core attention kernels (prefill on mma.sync and on
// wgmma, decode on mma.sync): asynchronous copies into shared memory, ldmatrix and mma.sync
// on swizzled tiles, the one-instruction 2^x, masking and the online softmax on the fp32
// accumulator layout, and packing probabilities into the 16-bit input type.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "devices/cuda/vendors/gpu.hpp"

namespace rooftop::attention::tensor_core {

__device__ inline unsigned smem_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// 16 bytes global -> shared without a register round trip; `bytes` 0 zero-fills (rows past S).
__device__ inline void cp_async_16(void* dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_address(dst)), "l"(src), "r"(bytes));
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// 2^x in one MUFU instruction; exp2f adds a denormal-range fixup around it.
__device__ inline float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Two floats rounded to T (bf16 or fp16) in one 32-bit register, low element first: the
// A-operand element pair of both mma.sync and wgmma.
template <class T>
__device__ inline unsigned pack2(float lo, float hi) {
  static_assert(std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>);
  unsigned u;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    memcpy(&u, &v, 4);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    memcpy(&u, &v, 4);
  }
  return u;
}

// ---- sm_80+: ldmatrix, mma.m16n8k16, and the swizzled tiles they read ----

__device__ inline void ldmatrix_x4(unsigned (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ inline void ldmatrix_x4_trans(unsigned (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// c += a (16x16, row) * b (16x8, col) with fp32 accumulation.
template <class T>
struct Mma {
  static_assert(std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>);
  __device__ static void run(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                   "{%0,%1,%2,%3};\n"
                   : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                   "{%0,%1,%2,%3};\n"
                   : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

// A tile in shared memory is rows of D elements in 16-byte chunks; chunk c of row r sits
// at chunk c ^ (r % 8), so the eight rows an ldmatrix reads at one column hit eight
// different bank groups.
template <int D>
__device__ inline int swizzled(int row, int chunk) {
  return row * D + ((chunk ^ (row % 8)) * 8);
}

// The shared address a lane gives ldmatrix for the 16x16 block at (row0 + lane_row, 2 step +
// lane_chunk), for any row0 a multiple of 8 and any step: the lane's address for step 0,
// XOR 32 step, plus row0's rows. The XOR stays inside one row (rows start 256-aligned at D =
// 128, 128-aligned at D = 64), so the steps cost an ALU op, not a register each.
template <class T, int D>
__device__ inline unsigned lane_address(const T* tile, int lane_row, int lane_chunk) {
  return smem_address(tile) + static_cast<unsigned>(swizzled<D>(lane_row, lane_chunk) * sizeof(T));
}
template <class T, int D>
__device__ inline unsigned step_address(unsigned lane, int step, int row0) {
  return (lane ^ static_cast<unsigned>(step * 32)) + static_cast<unsigned>(row0 * D * sizeof(T));
}

// Rows [r0, r0 + ROWS) of a [S, D] matrix into shared memory by cp.async, 16-byte chunk c
// of row r at byte place(r, c) of `tile`; rows at or past S are zeros.
template <class T, int D, int ROWS, int THREADS, class Place>
__device__ inline void load_rows(void* tile, const T* g, int r0, int s, Place place) {
  constexpr int kChunks = D / 8;
#pragma unroll
  for (int i = threadIdx.x; i < ROWS * kChunks; i += THREADS) {
    const int row = i / kChunks, c = i % kChunks;
    const int gr = r0 + row;
    cp_async_16(static_cast<unsigned char*>(tile) + place(row, c), g + (gr < s ? gr : s - 1) * D + c * 8,
                gr < s ? 16 : 0);
  }
}

// The same into a swizzled tile (ldmatrix's layout above).
template <class T, int D, int ROWS, int THREADS>
__device__ inline void load_tile(T* tile, const T* g, int r0, int s) {
  load_rows<T, D, ROWS, THREADS>(tile, g, r0, s,
                                 [](int row, int c) { return swizzled<D>(row, c) * static_cast<int>(sizeof(T)); });
}

// The scores of one warp's 16 rows x 8 NT keys, in the fp32 accumulator layout that
// mma.m16n8 and wgmma m64 share: s[nt][e] is row lane/4 + 8 (e/2), key 8 nt + 2 (lane%4) +
// e%2. Each row lives in the four lanes of a quad.

// Keys at or past `seq`, and under a causal mask keys after the query, score -inf. `j0` is
// the tile's first key, `i0` the warp tile's first query row.
template <int NT>
__device__ inline void mask_scores(float (&s)[NT][4], int j0, int i0, int seq, bool causal) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int nt = 0; nt < NT; ++nt)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int j = j0 + nt * 8 + (lane % 4) * 2 + (e % 2);
      const int i = i0 + lane / 4 + (e / 2) * 8;
      if (j >= seq || (causal && j > i)) s[nt][e] = -INFINITY;
    }
}

// One online-softmax step: scores become unnormalised probabilities 2^(s scale_log2 - max),
// the running maxima and sums move on, and `corr` is what the output must be multiplied by.
// Returns whether any of the thread's rows' maxima moved (else corr is exactly 1).
template <int NT>
__device__ inline bool online_softmax(float (&s)[NT][4], float (&row_max)[2], float (&row_sum)[2], float (&corr)[2],
                                      float scale_log2) {
  bool moved = false;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float mx = row_max[r];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) mx = fmaxf(mx, fmaxf(s[nt][2 * r], s[nt][2 * r + 1]));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    const float base = mx == -INFINITY ? 0.0f : mx * scale_log2;
    corr[r] = fast_exp2(row_max[r] * scale_log2 - base);
    moved |= mx != row_max[r];
    row_max[r] = mx;
    float sum = 0;
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int e = 2 * r; e < 2 * r + 2; ++e) {
        s[nt][e] = fast_exp2(fmaf(s[nt][e], scale_log2, -base));
        sum += s[nt][e];
      }
    row_sum[r] = row_sum[r] * corr[r] + sum;
  }
  return moved;
}

// An output tile's rows times their softmax corrections (the accumulator layout above).
template <int N>
__device__ inline void rescale_rows(float (&o)[N][4], const float (&corr)[2]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) o[i][e] *= corr[e / 2];
}

// 1 / the row's whole sum (0 for a row that saw no key): the quad's partial sums added.
__device__ inline float inverse_row_sum(float partial) {
  partial += __shfl_xor_sync(0xffffffffu, partial, 1);
  partial += __shfl_xor_sync(0xffffffffu, partial, 2);
  return partial > 0 ? 1.0f / partial : 0.0f;
}

// Probabilities for keys [16 kk, 16 kk + 16) as the 16x16 A operand (row-major, T pairs).
template <class T, int NT>
__device__ inline void probabilities_as_a(const float (&s)[NT][4], int kk, unsigned (&a)[4]) {
  a[0] = pack2<T>(s[2 * kk][0], s[2 * kk][1]);
  a[1] = pack2<T>(s[2 * kk][2], s[2 * kk][3]);
  a[2] = pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
  a[3] = pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
}

}  // namespace rooftop::attention::tensor_core
