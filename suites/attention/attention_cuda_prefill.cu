#include "suites/attention/attention_cuda_prefill_kernels.cuh"
#include "suites/attention/attention_cuda_tensor_core.cuh"

#include <cmath>
#include <type_traits>

#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/vendors/gpu.hpp"

namespace rooftop::attention {
namespace {

using namespace tensor_core;

// Block (query block, batch x head). Each warp owns MT 16-row tiles of the block's BM rows
// and all of its output; keys stream through a ring of STAGES K and V tiles.
template <class T, int D, int BM, int BN, int WARPS, int STAGES>
__global__ void __launch_bounds__(WARPS * 32) prefill_kernel(PrefillArgs a) {
  constexpr int kThreads = WARPS * 32;
  constexpr int MT = BM / (16 * WARPS);  // 16-row tiles per warp
  constexpr int NT = BN / 8;             // 8-key score tiles
  constexpr int DT = D / 8;              // 8-column output tiles
  static_assert(MT >= 1 && BM % (16 * WARPS) == 0 && BN % 16 == 0 && D % 16 == 0);

  extern __shared__ __align__(1024) uint4 shared_raw[];
  T* sq = reinterpret_cast<T*>(shared_raw);
  T* sk = sq + BM * D;
  T* sv = sk + STAGES * BN * D;

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const PrefillBlock<T, D> blk(a, BM, BN);
  const int seq = blk.seq, m0 = blk.m0, tiles = blk.tiles;
  const T *qg = blk.q, *kg = blk.k, *vg = blk.v;

  load_tile<T, D, BM, kThreads>(sq, qg, m0, seq);
  for (int t = 0; t < STAGES - 1; ++t) {
    if (t < tiles) {
      load_tile<T, D, BN, kThreads>(sk + t * BN * D, kg, t * BN, seq);
      load_tile<T, D, BN, kThreads>(sv + t * BN * D, vg, t * BN, seq);
    }
    cp_async_commit();
  }

  float o[MT][DT][4] = {};
  float row_max[MT][2], row_sum[MT][2];
  for (int mt = 0; mt < MT; ++mt)
    for (int r = 0; r < 2; ++r) {
      row_max[mt][r] = -INFINITY;
      row_sum[mt][r] = 0;
    }
  const float scale_log2 = 1.4426950408889634f * rsqrtf(static_cast<float>(D));
  const int warp_row = warp * MT * 16;
  const unsigned q_lane = lane_address<T, D>(sq, warp_row + lane % 16, lane / 16);

  for (int t = 0; t < tiles; ++t) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // tile t visible to all; the slot of tile t - 1 free for refill
    {
      const int next = t + STAGES - 1;
      if (next < tiles) {
        load_tile<T, D, BN, kThreads>(sk + (next % STAGES) * BN * D, kg, next * BN, seq);
        load_tile<T, D, BN, kThreads>(sv + (next % STAGES) * BN * D, vg, next * BN, seq);
      }
      cp_async_commit();
    }
    const unsigned k_lane = lane_address<T, D>(sk + (t % STAGES) * BN * D, (lane / 16) * 8 + lane % 8, (lane / 8) % 2);
    const unsigned v_lane = lane_address<T, D>(sv + (t % STAGES) * BN * D, ((lane / 8) % 2) * 8 + lane % 8, lane / 16);

    // S = Q K^T for this warp's rows and the tile's BN keys.
    float s[MT][NT][4] = {};
#pragma unroll
    for (int kd = 0; kd < D / 16; ++kd) {
      unsigned qa[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
        ldmatrix_x4(qa[mt], step_address<T, D>(q_lane, kd, mt * 16));
#pragma unroll
      for (int np = 0; np < NT / 2; ++np) {
        unsigned kb[4];
        ldmatrix_x4(kb, step_address<T, D>(k_lane, kd, np * 16));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          Mma<T>::run(s[mt][2 * np], qa[mt], kb[0], kb[1]);
          Mma<T>::run(s[mt][2 * np + 1], qa[mt], kb[2], kb[3]);
        }
      }
    }

    // Keys past S, and keys after the query under a causal mask, score -inf.
    const int j0 = t * BN;
    if (j0 + BN > seq || (a.causal && j0 + BN - 1 > m0)) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) mask_scores(s[mt], j0, m0 + warp_row + mt * 16, seq, a.causal);
    }

    float corr[MT][2];
    bool rescale = false;
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) rescale |= online_softmax(s[mt], row_max[mt], row_sum[mt], corr[mt], scale_log2);
    // Deep into a long row the maximum rarely moves: skip the output rescale (exactly 1)
    // when no row of the warp's moved.
    if (__any_sync(0xffffffffu, rescale)) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) rescale_rows(o[mt], corr[mt]);
    }

    // O += P V: the score accumulators, rounded to T, are already the A operand's layout.
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      unsigned pa[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) probabilities_as_a<T>(s[mt], kk, pa[mt]);
#pragma unroll
      for (int dp = 0; dp < DT / 2; ++dp) {
        unsigned vb[4];
        ldmatrix_x4_trans(vb, step_address<T, D>(v_lane, dp, kk * 16));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          Mma<T>::run(o[mt][2 * dp], pa[mt], vb[0], vb[1]);
          Mma<T>::run(o[mt][2 * dp + 1], pa[mt], vb[2], vb[3]);
        }
      }
    }
  }
  cp_async_wait<0>();

  // O / l into the warp's own Q rows of shared memory, then out in 16-byte rows.
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float inv = inverse_row_sum(row_sum[mt][r]);
      const int row = warp_row + mt * 16 + lane / 4 + 8 * r;
#pragma unroll
      for (int dt = 0; dt < DT; ++dt) {
        const int col = dt * 8 + (lane % 4) * 2;
        const unsigned packed = pack2<T>(o[mt][dt][2 * r] * inv, o[mt][dt][2 * r + 1] * inv);
        memcpy(sq + swizzled<D>(row, col / 8) + col % 8, &packed, 4);
      }
    }
  __syncwarp();
  constexpr int kChunks = D / 8;
  for (int i = lane; i < MT * 16 * kChunks; i += 32) {
    const int row = warp_row + i / kChunks, c = i % kChunks;
    if (m0 + row < seq)
      *reinterpret_cast<uint4*>(blk.output_row(a, m0 + row) + c * 8) = *reinterpret_cast<const uint4*>(sq + swizzled<D>(row, c));
  }
}

template <class T, int D, int BM, int BN, int WARPS, int STAGES>
constexpr int shared_bytes() {
  return (BM + 2 * STAGES * BN) * D * static_cast<int>(sizeof(T));
}

template <class T, int D, int BM, int BN, int WARPS, int STAGES>
void launch_one(const PrefillArgs& a) {
  constexpr int bytes = shared_bytes<T, D, BM, BN, WARPS, STAGES>();
  auto* kernel = prefill_kernel<T, D, BM, BN, WARPS, STAGES>;
  static const bool attribute_set = [&] {
    ROOFTOP_GPU_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    return true;
  }();
  (void)attribute_set;
  const dim3 grid(static_cast<unsigned>((a.s + BM - 1) / BM), static_cast<unsigned>(a.b * a.hq));
  kernel<<<grid, WARPS * 32, bytes, gpu::stream()>>>(a);
  ROOFTOP_GPU_CHECK_LAUNCH("prefill_kernel");
}

template <int BM, int BN, int WARPS, int STAGES>
PrefillKernel compile() {
  PrefillKernel c{{BM, BN, WARPS, STAGES}, {}, {}, {}};
  c.kernels[0][0] = reinterpret_cast<const void*>(prefill_kernel<__nv_bfloat16, 64, BM, BN, WARPS, STAGES>);
  c.kernels[0][1] = reinterpret_cast<const void*>(prefill_kernel<__nv_bfloat16, 128, BM, BN, WARPS, STAGES>);
  c.kernels[1][0] = reinterpret_cast<const void*>(prefill_kernel<__half, 64, BM, BN, WARPS, STAGES>);
  c.kernels[1][1] = reinterpret_cast<const void*>(prefill_kernel<__half, 128, BM, BN, WARPS, STAGES>);
  c.shared[0] = shared_bytes<__nv_bfloat16, 64, BM, BN, WARPS, STAGES>();
  c.shared[1] = shared_bytes<__nv_bfloat16, 128, BM, BN, WARPS, STAGES>();
  c.launch[0][0] = launch_one<__nv_bfloat16, 64, BM, BN, WARPS, STAGES>;
  c.launch[0][1] = launch_one<__nv_bfloat16, 128, BM, BN, WARPS, STAGES>;
  c.launch[1][0] = launch_one<__half, 64, BM, BN, WARPS, STAGES>;
  c.launch[1][1] = launch_one<__half, 128, BM, BN, WARPS, STAGES>;
  return c;
}

}  // namespace

// FlashAttention-2's forward tiles for Ampere/Hopper are 128 query rows by 32-64 keys with
// four warps; the others show the spread around it.
const std::vector<PrefillKernel>& mma_prefill_kernels() {
  static const std::vector<PrefillKernel> all{compile<128, 64, 4, 2>(), compile<128, 32, 4, 2>(),
                                              compile<64, 64, 4, 2>(), compile<128, 64, 8, 2>(),
                                              compile<128, 64, 4, 3>()};
  return all;
}

}  // namespace rooftop::attention
