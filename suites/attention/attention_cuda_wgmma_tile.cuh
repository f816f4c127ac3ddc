#pragma once
// What a warpgroup of the Hopper prefill kernels does with its 64 query rows, whoever brings
// the tiles (cp.async by every thread in attention_cuda_prefill_hopper.cu, a TMA producer
// warpgroup in attention_cuda_prefill_hopper_ws.cu): the two products, the masked online
// softmax between them, and the output's way out.
#include "suites/attention/attention_cuda_prefill_kernels.cuh"
#include "suites/attention/attention_cuda_tensor_core.cuh"
#include "suites/attention/attention_cuda_wgmma.cuh"

namespace rooftop::attention::wgmma_tile {

using namespace tensor_core;

// wgmma's 128-byte swizzle (the TMA's CU_TENSOR_MAP_SWIZZLE_128B lays tiles out the same
// way): a tile of ROWS x D elements is stored as D / 64 panels of ROWS rows x 128 bytes, and
// 16-byte chunk c of row r sits at chunk c ^ (r % 8) of its row. Panels start 1024-byte
// aligned, as the swizzle's address bits require.
template <int ROWS>
__device__ inline int panel_offset(int row, int chunk) {
  return (chunk / 8) * ROWS * 128 + row * 128 + (((chunk % 8) ^ (row % 8)) * 16);
}

// S = Q K^T for one key tile, issued and committed: k16 steps along D, 32 bytes apart inside
// a panel, panel by panel. `q` is the warpgroup's first Q row in a tile of QROWS-row panels.
template <class T, int D, int BN, int QROWS>
__device__ inline void issue_scores(float (&s)[BN / 8][4], unsigned q, unsigned k) {
  wgmma::fence();
#pragma unroll
  for (int kd = 0; kd < D / 16; ++kd) {
    const unsigned step = (kd % 4) * 32u;
    const auto qd = wgmma::descriptor(q + (kd / 4) * QROWS * 128 + step, 16, 1024);
    const auto kdsc = wgmma::descriptor(k + (kd / 4) * BN * 128 + step, 16, 1024);
    wgmma::Mma<T, BN>::ss(s, qd, kdsc, kd > 0);
  }
  wgmma::commit();
}

// O += P V for one key tile, issued and committed: k16 steps along the keys, 16 rows of 128
// bytes apart; V is MN-major (D contiguous), its 64-column panels BN x 128 bytes apart.
template <class T, int D, int BN>
__device__ inline void issue_output(float (&o)[D / 8][4], unsigned (&p)[BN / 16][4], unsigned v) {
  wgmma::fence();
#pragma unroll
  for (int kk = 0; kk < BN / 16; ++kk)
    wgmma::Mma<T, D>::rs(o, p[kk], wgmma::descriptor(v + kk * 16 * 128, BN * 128, 1024));
  wgmma::commit();
}

// A warp's running softmax state over its 16 rows (two a thread).
struct RowState {
  float max[2] = {-INFINITY, -INFINITY}, sum[2] = {0, 0};
};

// Key tile j0's scores masked (past `seq`, and past the diagonal when causal; `row0` is the
// warp's first query row) and through the online softmax into P. Returns whether any of the
// warp's rows moved its maximum, and so the output needs `corr`.
template <class T, int BN>
__device__ inline bool softmax_tile(float (&s)[BN / 8][4], int j0, int row0, int seq, bool causal, float scale_log2,
                                    RowState& rows, unsigned (&p)[BN / 16][4], float (&corr)[2]) {
  if (j0 + BN > seq || (causal && j0 + BN - 1 > row0)) mask_scores(s, j0, row0, seq, causal);
  const bool moved = __any_sync(0xffffffffu, online_softmax(s, rows.max, rows.sum, corr, scale_log2));
#pragma unroll
  for (int kk = 0; kk < BN / 16; ++kk) probabilities_as_a<T>(s, kk, p[kk]);
  return moved;
}

// O / l through the warp's own rows of the Q tile (`tile`, BM-row panels; the warpgroup's
// wgmmas are done with them), then out in 16-byte pieces, a warp its 16 rows. `warp_row` is
// the warp's first row of the block.
template <class T, int D, int BM>
__device__ inline void store_output(const PrefillArgs& a, const PrefillBlock<T, D>& blk, unsigned char* tile,
                                    const float (&o)[D / 8][4], const RowState& rows, int warp_row) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float inv = inverse_row_sum(rows.sum[r]);
    const int row = warp_row + lane / 4 + 8 * r;
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) {
      const unsigned packed = pack2<T>(o[dt][2 * r] * inv, o[dt][2 * r + 1] * inv);
      memcpy(tile + panel_offset<BM>(row, dt) + (lane % 4) * 4, &packed, 4);
    }
  }
  __syncwarp();
  constexpr int kChunks = D / 8;
  for (int i = lane; i < 16 * kChunks; i += 32) {
    const int row = warp_row + i / kChunks, c = i % kChunks;
    if (blk.m0 + row < blk.seq)
      *reinterpret_cast<uint4*>(blk.output_row(a, blk.m0 + row) + c * 8) =
          *reinterpret_cast<const uint4*>(tile + panel_offset<BM>(row, c));
  }
}

}  // namespace rooftop::attention::wgmma_tile
