// The fused prefill kernel on Hopper's warpgroup MMA (wgmma, sm_90a only): the step from
// the FlashAttention-2 class kernel of attention_cuda_prefill.cu towards FlashAttention-3.
// Each of a block's warpgroups owns 64 query rows; S = Q K^T reads both operands from
// shared memory through descriptors, O += P V takes P from the registers the scores were
// computed in. Masking and the online softmax are the mma.sync kernel's (tensor_core.cuh).
#include "suites/attention/attention_cuda_wgmma_tile.cuh"

#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/vendors/gpu.hpp"

namespace rooftop::attention {
namespace {

using namespace tensor_core;
using wgmma_tile::panel_offset;

// Rows [r0, r0 + ROWS) of a [S, D] matrix into wgmma's panels; rows at or past S are zeros.
template <class T, int D, int ROWS, int THREADS>
__device__ inline void load_panels(unsigned char* tile, const T* g, int r0, int s) {
  load_rows<T, D, ROWS, THREADS>(tile, g, r0, s, [](int row, int c) { return panel_offset<ROWS>(row, c); });
}

template <class T, int D, int BN, int WGS>
constexpr int hopper_shared_bytes() {
  // Q, then two stages of K and of V, plus the slack that aligns the base to 1024 bytes.
  return (WGS * 64 + 4 * BN) * D * static_cast<int>(sizeof(T)) + 1024;
}

// Block (query block, batch x head) of WGS warpgroups, 64 query rows each. OVERLAP:
// FlashAttention-3's intra-warpgroup pipelining. Tile t's scores and tile t - 1's P V are
// issued together, and the softmax of tile t runs while P V is still on the tensor cores.
// It costs a second set of P registers, and V loads one tile behind K.
template <class T, int D, int BN, int WGS, bool OVERLAP>
__global__ void __launch_bounds__(WGS * 128, 1) prefill_wgmma(PrefillArgs a) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int BM = WGS * 64, kThreads = WGS * 128, kQBytes = BM * D * 2, kTileBytes = BN * D * 2;
  extern __shared__ unsigned char shared_raw[];
  unsigned char* smem = shared_raw + ((1024 - smem_address(shared_raw) % 1024) % 1024);
  unsigned char* sq = smem;
  auto sk = [&](int stage) { return smem + kQBytes + stage * kTileBytes; };
  auto sv = [&](int stage) { return smem + kQBytes + (2 + stage) * kTileBytes; };

  const int wg = threadIdx.x / 128, warp = (threadIdx.x % 128) / 32;
  const PrefillBlock<T, D> blk(a, BM, BN);
  const int seq = blk.seq, m0 = blk.m0, tiles = blk.tiles;
  const T *qg = blk.q, *kg = blk.k, *vg = blk.v;

  load_panels<T, D, BM, kThreads>(sq, qg, m0, seq);
  load_panels<T, D, BN, kThreads>(sk(0), kg, 0, seq);
  load_panels<T, D, BN, kThreads>(sv(0), vg, 0, seq);
  cp_async_commit();

  float o[D / 8][4] = {};
  wgmma_tile::RowState rows;
  const float scale_log2 = 1.4426950408889634f * rsqrtf(static_cast<float>(D));
  const int warp_row = wg * 64 + warp * 16;  // the warp's first row of the block
  const unsigned q_base = smem_address(sq) + wg * 64 * 128;

  // Waits for this thread's loads, then for the block: the tiles are visible to wgmma, and
  // every warpgroup's wgmmas of the last step are done, so their stages are free.
  auto arrive = [&] {
    cp_async_wait<0>();
    wgmma::fence_shared_for_async();
    __syncthreads();
  };
  auto load_k = [&](int t) { load_panels<T, D, BN, kThreads>(sk(t % 2), kg, t * BN, seq); };
  auto load_v = [&](int t) { load_panels<T, D, BN, kThreads>(sv(t % 2), vg, t * BN, seq); };
  auto issue_scores = [&](float(&s)[BN / 8][4], int t) {
    wgmma_tile::issue_scores<T, D, BN, BM>(s, q_base, smem_address(sk(t % 2)));
  };
  auto issue_output = [&](unsigned(&p)[BN / 16][4], int t) {
    wgmma_tile::issue_output<T, D, BN>(o, p, smem_address(sv(t % 2)));
  };
  auto softmax = [&](float(&s)[BN / 8][4], int t, unsigned(&p)[BN / 16][4], float(&corr)[2]) {
    return wgmma_tile::softmax_tile<T, BN>(s, t * BN, m0 + warp_row, seq, a.causal, scale_log2, rows, p, corr);
  };

  if constexpr (!OVERLAP) {
    for (int t = 0; t < tiles; ++t) {
      arrive();
      if (t + 1 < tiles) {
        load_k(t + 1);
        load_v(t + 1);
      }
      cp_async_commit();
      float s[BN / 8][4], corr[2];
      unsigned p[BN / 16][4];
      issue_scores(s, t);
      wgmma::wait<0>();
      wgmma::hold(s);
      if (softmax(s, t, p, corr)) rescale_rows(o, corr);
      issue_output(p, t);
      wgmma::wait<0>();
      wgmma::hold(o);
      wgmma::hold(p);
    }
  } else {
    // Step t holds K_t and V_(t-1); it loads K_(t+1) and V_t into the stages that the last
    // step's wgmmas (on K_(t-1) and V_(t-2)) have left.
    unsigned p[BN / 16][4];
    arrive();
    if (tiles > 1) load_k(1);
    cp_async_commit();
    {
      float s[BN / 8][4], corr[2];
      issue_scores(s, 0);
      wgmma::wait<0>();
      wgmma::hold(s);
      softmax(s, 0, p, corr);  // the output is still zero: nothing to correct
    }
    // Step `tiles` adds the last P V. It issues a product of scores too, on whatever its K
    // stage holds, and drops it: ptxas keeps the pipeline asynchronous only where every step
    // commits the same wgmma groups, and this costs one S tile of BN keys a block.
    for (int t = 1; t <= tiles; ++t) {
      const bool last = t == tiles;
      arrive();
      if (t + 1 < tiles) load_k(t + 1);
      if (!last) load_v(t);
      cp_async_commit();
      float s[BN / 8][4], corr[2];
      unsigned next[BN / 16][4];
      issue_scores(s, t);
      issue_output(p, t - 1);
      wgmma::wait<1>();  // groups retire in order: the scores are in, P V may still run
      wgmma::hold(s);
      const bool moved = !last && softmax(s, t, next, corr);
      wgmma::wait<0>();
      wgmma::hold(o);
      wgmma::hold(p);
      if (moved) rescale_rows(o, corr);
#pragma unroll
      for (int kk = 0; kk < BN / 16; ++kk)
#pragma unroll
        for (int e = 0; e < 4; ++e) p[kk][e] = next[kk][e];
    }
  }

  wgmma_tile::store_output<T, D, BM>(a, blk, sq, o, rows, warp_row);
#else
  (void)a;
  __trap();  // built for sm_90a only; the host never launches it elsewhere
#endif
}

template <class T, int D, int BN, int WGS, bool OVERLAP>
void launch_one(const PrefillArgs& a) {
  constexpr int bytes = hopper_shared_bytes<T, D, BN, WGS>();
  auto* kernel = prefill_wgmma<T, D, BN, WGS, OVERLAP>;
  static const bool attribute_set = [&] {
    ROOFTOP_GPU_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    return true;
  }();
  (void)attribute_set;
  const dim3 grid(static_cast<unsigned>((a.s + WGS * 64 - 1) / (WGS * 64)), static_cast<unsigned>(a.b * a.hq));
  kernel<<<grid, WGS * 128, bytes, gpu::stream()>>>(a);
  ROOFTOP_GPU_CHECK_LAUNCH("prefill_wgmma");
}

template <int BN, int WGS, bool OVERLAP = false>
PrefillKernel compile() {
  PrefillKernel c{{WGS * 64, BN, WGS * 4, 2, true, OVERLAP}, {}, {}, {}};
  c.kernels[0][0] = reinterpret_cast<const void*>(prefill_wgmma<__nv_bfloat16, 64, BN, WGS, OVERLAP>);
  c.kernels[0][1] = reinterpret_cast<const void*>(prefill_wgmma<__nv_bfloat16, 128, BN, WGS, OVERLAP>);
  c.kernels[1][0] = reinterpret_cast<const void*>(prefill_wgmma<__half, 64, BN, WGS, OVERLAP>);
  c.kernels[1][1] = reinterpret_cast<const void*>(prefill_wgmma<__half, 128, BN, WGS, OVERLAP>);
  c.shared[0] = hopper_shared_bytes<__nv_bfloat16, 64, BN, WGS>();
  c.shared[1] = hopper_shared_bytes<__nv_bfloat16, 128, BN, WGS>();
  c.launch[0][0] = launch_one<__nv_bfloat16, 64, BN, WGS, OVERLAP>;
  c.launch[0][1] = launch_one<__nv_bfloat16, 128, BN, WGS, OVERLAP>;
  c.launch[1][0] = launch_one<__half, 64, BN, WGS, OVERLAP>;
  c.launch[1][1] = launch_one<__half, 128, BN, WGS, OVERLAP>;
  return c;
}

}  // namespace

const std::vector<PrefillKernel>& hopper_prefill_kernels() {
  // After the TMA producer's tiles (the defaults, attention_cuda_prefill_hopper_ws.cu). Three
  // warpgroups first: while one runs its softmax the others keep the tensor cores busy, which
  // two alone (in step at every barrier) do not. The overlapped pair comes last: 3% ahead of
  // its plain twin at 8k, behind three warpgroups (docs/PERFORMANCE.md).
  static const std::vector<PrefillKernel> all{compile<128, 3>(), compile<128, 2>(), compile<64, 2>(),
                                              compile<128, 2, true>()};
  return all;
}

}  // namespace rooftop::attention
