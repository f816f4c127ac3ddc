// The warp-specialised Hopper prefill (sm_90a): FlashAttention-3's structure on the wgmma
// tile of attention_cuda_wgmma_tile.cuh. A producer warpgroup gives up its registers and
// one of its threads streams Q, K and V in with the TMA, each stage behind a pair of
// mbarriers (full: the bytes are in; free: every consumer warp is done reading), so the
// consumer warpgroups (two or three, 64 query rows each) never meet at a block barrier. Every
// consumer runs the intra-warpgroup overlap (tile t's scores and tile t - 1's P V issued
// together). PINGPONG: the consumers take turns, round a ring, to issue their products, so
// one's softmax runs under another's products instead of all softmaxes leaving the tensor
// cores idle at once.
#include <cudaTypedefs.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/vendors/gpu.hpp"
#include "suites/attention/attention_cuda_tma.cuh"
#include "suites/attention/attention_cuda_wgmma_tile.cuh"

namespace rooftop::attention {
namespace {

using namespace tensor_core;

// A block is the producer warpgroup, then CONSUMERS warpgroups of 64 query rows. The
// producer keeps 24 registers a thread and the consumers share the rest: 240 each for two
// (head dim 128's accumulators, scores and two sets of P), 160 each for three (head dim 64).
template <int CONSUMERS>
constexpr int kConsumerRegisters = std::min(240, (65536 / 128 - 24) / CONSUMERS / 8 * 8);

template <int D, int BN, int STAGES, int CONSUMERS>
constexpr int ws_shared_bytes() {
  // Q, STAGES tiles of K and of V, the mbarriers, and the slack that aligns the base to 1024.
  return (CONSUMERS * 64 + 2 * STAGES * BN) * D * 2 + (1 + 4 * STAGES) * 8 + 1024;
}

template <class T, int D, int BN, int STAGES, int CONSUMERS, bool PINGPONG>
__global__ void __launch_bounds__((CONSUMERS + 1) * 128, 1)
    prefill_ws(const __grid_constant__ PrefillArgs a, const __grid_constant__ CUtensorMap q_map,
               const __grid_constant__ CUtensorMap k_map, const __grid_constant__ CUtensorMap v_map) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int BM = CONSUMERS * 64, kConsumerWarps = CONSUMERS * 4, kPanels = D / 64, kQBytes = BM * D * 2, kTileBytes = BN * D * 2;
  extern __shared__ unsigned char shared_raw[];
  unsigned char* smem = shared_raw + ((1024 - smem_address(shared_raw) % 1024) % 1024);
  unsigned char* sq = smem;
  auto sk = [&](int t) { return smem + kQBytes + (t % STAGES) * kTileBytes; };
  auto sv = [&](int t) { return smem + kQBytes + (STAGES + t % STAGES) * kTileBytes; };
  auto* bars = reinterpret_cast<std::uint64_t*>(smem + kQBytes + 2 * STAGES * kTileBytes);
  std::uint64_t* q_full = bars;
  auto k_full = [&](int t) { return bars + 1 + t % STAGES; };
  auto k_free = [&](int t) { return bars + 1 + STAGES + t % STAGES; };
  auto v_full = [&](int t) { return bars + 1 + 2 * STAGES + t % STAGES; };
  auto v_free = [&](int t) { return bars + 1 + 3 * STAGES + t % STAGES; };
  // The parity of tile t's use of its stage: the stage's (t / STAGES)-th phase.
  auto parity = [](int t) { return static_cast<unsigned>((t / STAGES) & 1); };

  const PrefillBlock<T, D> blk(a, BM, BN);
  const int tiles = blk.tiles;
  if (threadIdx.x == 0) {
    tma::barrier_init(q_full, 1);
    for (int st = 0; st < STAGES; ++st) {
      tma::barrier_init(k_full(st), 1);
      tma::barrier_init(v_full(st), 1);
      tma::barrier_init(k_free(st), kConsumerWarps);
      tma::barrier_init(v_free(st), kConsumerWarps);
    }
    tma::barrier_init_fence();
  }
  __syncthreads();

  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    tma::release_registers<24>();
    if (threadIdx.x != 0) return;
    const int bh = static_cast<int>(blk.bh), kv = static_cast<int>(blk.kv_head);
    tma::arrive_expect_bytes(q_full, kQBytes);
    for (int p = 0; p < kPanels; ++p) tma::load_box(sq + p * BM * 128, q_map, p * 64, blk.m0, bh, q_full);
    // K before V: a consumer needs K_t a step before V_t. The first pass over each stage
    // waits on parity 1, the phase before a fresh barrier's first: it does not wait.
    for (int t = 0; t < tiles; ++t) {
      tma::wait(k_free(t), parity(t) ^ 1);
      tma::arrive_expect_bytes(k_full(t), kTileBytes);
      for (int p = 0; p < kPanels; ++p) tma::load_box(sk(t) + p * BN * 128, k_map, p * 64, t * BN, kv, k_full(t));
      tma::wait(v_free(t), parity(t) ^ 1);
      tma::arrive_expect_bytes(v_full(t), kTileBytes);
      for (int p = 0; p < kPanels; ++p) tma::load_box(sv(t) + p * BN * 128, v_map, p * 64, t * BN, kv, v_full(t));
    }
    return;
  }

  tma::claim_registers<kConsumerRegisters<CONSUMERS>>();
  const int consumer = wg - 1, warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  const int warp_row = consumer * 64 + warp * 16;  // the warp's first row of the block
  const int row0 = blk.m0 + warp_row;
  const unsigned q_base = smem_address(sq) + consumer * 64 * 128;
  const float scale_log2 = 1.4426950408889634f * rsqrtf(static_cast<float>(D));
  float o[D / 8][4] = {};
  wgmma_tile::RowState rows;
  // A warp's reads of a stage are over once its wgmma wait returns; the stage is free when
  // all the consumer warps (kConsumerWarps) have said so.
  auto release = [&](std::uint64_t* bar) {
    __syncwarp();
    if (lane == 0) tma::arrive(bar);
  };
  // Named barrier 1 + c is consumer c's turn to issue. After issuing, a consumer hands the
  // turn to the next, round the ring; the last consumer hands it to consumer 0 once up front
  // (consumer 0 starts) and not after its last step, so every bar.sync meets one bar.arrive.
  constexpr bool kTurns = PINGPONG && CONSUMERS > 1;
  const int next_consumer = (consumer + 1) % CONSUMERS;
  auto take_turn = [&] {
    if constexpr (kTurns) tma::named_sync(1 + consumer, 256);
  };
  auto pass_turn = [&](bool last) {
    if constexpr (kTurns)
      if (!(last && next_consumer == 0)) tma::named_arrive(1 + next_consumer, 256);
  };

  tma::wait(q_full, 0);
  if constexpr (kTurns)
    if (next_consumer == 0) tma::named_arrive(1, 256);
  unsigned p[BN / 16][4];
  {
    float s[BN / 8][4], corr[2];
    tma::wait(k_full(0), 0);
    take_turn();
    wgmma_tile::issue_scores<T, D, BN, BM>(s, q_base, smem_address(sk(0)));
    pass_turn(false);
    wgmma::wait<0>();
    wgmma::hold(s);
    release(k_free(0));
    wgmma_tile::softmax_tile<T, BN>(s, 0, row0, blk.seq, a.causal, scale_log2, rows, p, corr);  // O is 0 still
  }
  // Step t holds K_t and V_(t-1). Step `tiles` adds the last P V and issues a product of
  // scores on whatever its K stage holds, then drops it: ptxas keeps the pipeline
  // asynchronous only where every step commits the same wgmma groups.
  for (int t = 1; t <= tiles; ++t) {
    const bool last = t == tiles;
    if (!last) tma::wait(k_full(t), parity(t));
    tma::wait(v_full(t - 1), parity(t - 1));
    float s[BN / 8][4], corr[2];
    unsigned next[BN / 16][4];
    take_turn();
    wgmma_tile::issue_scores<T, D, BN, BM>(s, q_base, smem_address(sk(t)));
    wgmma_tile::issue_output<T, D, BN>(o, p, smem_address(sv(t - 1)));
    pass_turn(last);
    wgmma::wait<1>();  // groups retire in order: the scores are in, P V may still run
    wgmma::hold(s);
    if (!last) release(k_free(t));
    const bool moved =
        !last && wgmma_tile::softmax_tile<T, BN>(s, t * BN, row0, blk.seq, a.causal, scale_log2, rows, next, corr);
    wgmma::wait<0>();
    wgmma::hold(o);
    wgmma::hold(p);
    release(v_free(t - 1));
    if (moved) rescale_rows(o, corr);
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk)
#pragma unroll
      for (int e = 0; e < 4; ++e) p[kk][e] = next[kk][e];
  }
  wgmma_tile::store_output<T, D, BM>(a, blk, sq, o, rows, warp_row);
#else
  (void)a, (void)q_map, (void)k_map, (void)v_map;
  __trap();  // built for sm_90a only; the host never launches it elsewhere
#endif
}

// cuTensorMapEncodeTiled from the driver the runtime loaded (no link to libcuda).
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult found{};
    ROOFTOP_GPU_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !f)
      throw std::runtime_error("the CUDA driver has no cuTensorMapEncodeTiled (the TMA prefill needs a 12.0+ driver); "
                               "run a tile without the 't' suffix");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

// `mats` matrices of `rows` rows x D (rows_stride rows apart), read as boxes of 64 columns
// (128 bytes: one swizzle panel) x box_rows rows. Rows at or past `rows` read as zeros.
template <class T, int D>
CUtensorMap tensor_map(const void* base, std::int64_t rows, std::int64_t mats, std::int64_t rows_stride,
                       int box_rows) {
  CUtensorMap map{};
  const cuuint64_t dims[3] = {D, static_cast<cuuint64_t>(rows), static_cast<cuuint64_t>(mats)};
  const cuuint64_t strides[2] = {D * sizeof(T), static_cast<cuuint64_t>(rows_stride) * D * sizeof(T)};
  const cuuint32_t box[3] = {64, static_cast<cuuint32_t>(box_rows), 1}, unit[3] = {1, 1, 1};
  const auto type = std::is_same_v<T, __nv_bfloat16> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const CUresult r = encode_tiled()(&map, type, 3, const_cast<void*>(base), dims, strides, box, unit,
                                    CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                    CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled refused a " + std::to_string(rows) + " x " + std::to_string(D) +
                             " attention tensor (error " + std::to_string(static_cast<int>(r)) +
                             "); run a tile without the 't' suffix");
  return map;
}

template <class T, int D, int BN, int STAGES, int CONSUMERS, bool PINGPONG>
void launch_one(const PrefillArgs& a) {
  constexpr int bytes = ws_shared_bytes<D, BN, STAGES, CONSUMERS>(), kBlockRows = CONSUMERS * 64;
  auto* kernel = prefill_ws<T, D, BN, STAGES, CONSUMERS, PINGPONG>;
  static const bool attribute_set = [&] {
    ROOFTOP_GPU_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    return true;
  }();
  (void)attribute_set;
  const std::int64_t kv_rows = a.kv_capacity ? a.kv_capacity : a.s;
  const CUtensorMap q = tensor_map<T, D>(a.q, a.s, a.b * a.hq, a.s, kBlockRows);
  const CUtensorMap k = tensor_map<T, D>(a.k, a.s, a.b * a.hkv, kv_rows, BN);
  const CUtensorMap v = tensor_map<T, D>(a.v, a.s, a.b * a.hkv, kv_rows, BN);
  const dim3 grid(static_cast<unsigned>((a.s + kBlockRows - 1) / kBlockRows), static_cast<unsigned>(a.b * a.hq));
  kernel<<<grid, (CONSUMERS + 1) * 128, bytes, gpu::stream()>>>(a, q, k, v);
  ROOFTOP_GPU_CHECK_LAUNCH("prefill_ws");
}

// Three consumers' 160 registers hold head dim 64's accumulators, not 128's: such a
// configuration is compiled for head dim 64 alone.
template <int BN, int STAGES, int CONSUMERS, bool PINGPONG>
PrefillKernel compile() {
  constexpr bool kDim128 = CONSUMERS < 3;
  PrefillConfig config{CONSUMERS * 64, BN, (CONSUMERS + 1) * 4, STAGES, true, true};
  config.producer = true;
  config.pingpong = PINGPONG;
  PrefillKernel c{config, {}, {}, {}};
  c.kernels[0][0] = reinterpret_cast<const void*>(prefill_ws<__nv_bfloat16, 64, BN, STAGES, CONSUMERS, PINGPONG>);
  c.kernels[1][0] = reinterpret_cast<const void*>(prefill_ws<__half, 64, BN, STAGES, CONSUMERS, PINGPONG>);
  c.shared[0] = ws_shared_bytes<64, BN, STAGES, CONSUMERS>();
  c.launch[0][0] = launch_one<__nv_bfloat16, 64, BN, STAGES, CONSUMERS, PINGPONG>;
  c.launch[1][0] = launch_one<__half, 64, BN, STAGES, CONSUMERS, PINGPONG>;
  if constexpr (kDim128) {
    c.kernels[0][1] = reinterpret_cast<const void*>(prefill_ws<__nv_bfloat16, 128, BN, STAGES, CONSUMERS, PINGPONG>);
    c.kernels[1][1] = reinterpret_cast<const void*>(prefill_ws<__half, 128, BN, STAGES, CONSUMERS, PINGPONG>);
    c.shared[1] = ws_shared_bytes<128, BN, STAGES, CONSUMERS>();
    c.launch[0][1] = launch_one<__nv_bfloat16, 128, BN, STAGES, CONSUMERS, PINGPONG>;
    c.launch[1][1] = launch_one<__half, 128, BN, STAGES, CONSUMERS, PINGPONG>;
  }
  return c;
}

}  // namespace

const std::vector<PrefillKernel>& hopper_ws_prefill_kernels() {
  // The defaults first, as measured on the H100 beside cuDNN (docs/PERFORMANCE.md): three
  // consumers at head dim 64 (x1.03-1.05 over the faster two-consumer tile), two with ping-pong at head dim 128.
  static const std::vector<PrefillKernel> all{compile<128, 2, 3, true>(), compile<128, 2, 2, true>(),
                                              compile<128, 2, 2, false>()};
  return all;
}

}  // namespace rooftop::attention
