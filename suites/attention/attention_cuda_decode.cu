#include "suites/attention/attention_cuda_decode.cuh"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "devices/cuda/gpu_pdl.cuh"
#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/vendors/gpu.hpp"
#include "harness/errors.hpp"
#if ROOFTOP_GPU_HAS_MMA_SYNC
#include "suites/attention/attention_cuda_tensor_core.cuh"
#endif

namespace rooftop::attention {
namespace {

constexpr int kWarps = 4;
// A warp here is a group of 32 lanes, also where the hardware's is wider (CDNA's wavefront of
// 64 holds two): every shuffle below is an XOR by less than 32, so it stays inside its group.
constexpr int kWarp = 32;
static_assert(kGpuWarpSize % kWarp == 0, "the decode kernels' 32-lane groups must tile the hardware's warp");
constexpr int kUnroll = 4;  // 8 needs registers that cost a quarter of the occupancy and the speed

__device__ inline float to_f(float x) { return x; }
template <class T>
__device__ inline T from_f(float x);
template <>
__device__ inline float from_f<float>(float x) { return x; }
#if ROOFTOP_GPU_HAS_MMA_SYNC  // only the tensor-core path writes bf16 and fp16
template <>
__device__ inline __nv_bfloat16 from_f<__nv_bfloat16>(float x) { return __float2bfloat16(x); }
template <>
__device__ inline __half from_f<__half>(float x) { return __float2half(x); }
#endif

// E consecutive elements of a row, one lane's share, loaded whole.
template <class T, int E>
struct alignas(sizeof(T) * E > 16 ? 16 : sizeof(T) * E) Chunk {
  T x[E];
};

// The keys sequence b attends: fixed at launch, or read from the device (a graph's replay,
// a ragged batch's own lengths). A split past them walks none and leaves an empty partial.
__device__ inline std::int64_t keys_attended(const DecodeArgs& a, std::int64_t b) {
  return a.keys_per_sequence ? a.keys_per_sequence[b] : a.skv_on_device ? *a.skv_on_device : a.skv;
}

// Per partial: m, l, then D outputs, for each (b, hq, split).
__device__ inline std::int64_t partial_index(std::int64_t bh, int split, int splits, std::int64_t d) {
  return (bh * splits + split) * (d + 2);
}

// After the partials, a ticket per block row (b, kvh, pass): the last split block of a row to
// finish merges all splits into the output rows, so no second kernel (and its launch gap)
// follows. The workspace holds b x hq tickets, at least one per block row.
__device__ inline std::uint32_t* tickets(const DecodeArgs& a) {
  return reinterpret_cast<std::uint32_t*>(a.partial + a.b * a.hq * a.splits * (a.d + 2));
}

// The query heads a block serves: the group's G = hq / hkv heads of one (b, kvh), in passes of
// at most GP (the kernel's compile-time rows: G rounded up to a power of two, so that any
// group from 1 to 16 runs on one of five kernels). Rows past the group are masked: their
// queries are zeros (tensor cores) or the last row's again (fp32), and nothing of theirs is
// written. The tensor-core kernel takes a group whole (GP up to 16, one pass); the fp32
// kernel holds at most 8 rows in registers and walks a larger group's cache in two passes.
// blockIdx.x = (b x hkv + kvh) x passes + pass.
struct BlockRows {
  std::int64_t b, kvh;
  std::int64_t head0;  // b x hq + the first query head of this block
  int n;               // the rows it serves, 1 to GP
};

template <int GP, bool kPasses>
__device__ inline BlockRows block_rows(const DecodeArgs& a) {
  const int group = static_cast<int>(a.hq / a.hkv), passes = kPasses ? (group + GP - 1) / GP : 1;
  const std::int64_t x = blockIdx.x, pair = kPasses ? x / passes : x;
  const int pass = kPasses ? static_cast<int>(x % passes) : 0;
  BlockRows r;
  r.b = pair / a.hkv;
  r.kvh = pair % a.hkv;
  r.head0 = r.b * a.hq + r.kvh * group + pass * GP;
  r.n = kPasses ? min(GP, group - pass * GP) : group;
  return r;
}

// The split's paged block ids, once into shared memory, so no key waits on a table load
// before its own. Ends with a barrier.
__device__ inline void load_block_table(const DecodeArgs& a, std::int64_t b, std::int64_t k0, std::int64_t k1,
                                        std::int32_t* table) {
  if (a.block) {
    const std::int64_t first = k0 / a.block, blocks = k1 > k0 ? (k1 - 1) / a.block - first + 1 : 0;
    for (std::int64_t i = threadIdx.x; i < blocks; i += blockDim.x) table[i] = a.block_table[b * ((a.capacity ? a.capacity : a.skv) / a.block) + first + i];
  }
  __syncthreads();
}

// Element offset of key j's row in the K (and V) cache, j in [k0, k1).
__device__ inline std::int64_t key_row(const DecodeArgs& a, std::int64_t b, std::int64_t kvh, std::int64_t k0,
                                       std::int64_t j, const std::int32_t* table) {
  if (!a.block) return ((b * a.hkv + kvh) * (a.capacity ? a.capacity : a.skv) + j) * a.d;
  // Shifts, not a 64-bit division by the block size: that cost paging a fifth.
  const int shift = a.block == 32 ? 5 : 4;  // block sizes are 16 or 32
  const int jj = static_cast<int>(j);
  const std::int64_t blk = table[(jj >> shift) - (static_cast<int>(k0) >> shift)];
  return ((blk * a.hkv + kvh) * a.block + (jj & (static_cast<int>(a.block) - 1))) * a.d;
}

// The last block of a block row merges the splits' partials into the output rows. It runs
// after every other block of the row, so on a one-wave launch (batch 1 to 8) its time is
// the kernel's tail: it is built to wait on as few dependent loads as it can. Each thread
// keeps a running max and sum over its splits in one pass (the sum rescaled as the max
// moves), so the partials' m and l are read once; then warp w adds splits w, w + kWarps,
// ..., unrolled so that the loads of several splits are in flight together, its lanes
// holding the rows x D outputs. (A serial walk, two passes over every split, was the tail of
// B = 1 decode: 1.9 TB/s at 33 splits of 32k keys, 0.3 TB/s at 512.) Loops over the GP
// compile-time rows are unrolled (a register array indexed at run time would go to local
// memory) and skip the rows past r.n: a block-uniform branch.
template <class T, int D, int GP>
__device__ void merge_splits(const DecodeArgs& a, const BlockRows& r, float (*sm_acc)[GP][D]) {
  // Four splits' loads in flight on the tensor-core kernels up to 8 rows; the fp32 kernel at
  // 8 rows would pass 128 registers with them, and lose a block a multiprocessor, and 16
  // rows have 16 splits' worth of loads in flight in one.
  constexpr int kPerLane = D / kWarp,
                kSplitsInFlight = (std::is_same_v<T, float> && GP == 8) || GP > 8 ? 1 : 4;
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp, rows = r.n;
  const std::int64_t bh0 = r.head0;
  __shared__ float warp_part[kWarps][GP], head_max[GP], head_sum[GP];
  const auto block_reduce = [&](float (&v)[GP], bool take_max, float (&out)[GP]) {
#pragma unroll
    for (int g = 0; g < GP; ++g) {
      if (g >= rows) continue;
      float x = v[g];
      for (int off = kWarp / 2; off > 0; off /= 2) {
        const float y = __shfl_xor_sync(0xffffffffu, x, off);
        x = take_max ? fmaxf(x, y) : x + y;
      }
      if (lane == 0) warp_part[warp][g] = x;
    }
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < rows) {
      float x = warp_part[0][threadIdx.x];
      for (int w = 1; w < kWarps; ++w) x = take_max ? fmaxf(x, warp_part[w][threadIdx.x]) : x + warp_part[w][threadIdx.x];
      out[threadIdx.x] = x;
    }
    __syncthreads();
  };
  float mx[GP], sum[GP];
#pragma unroll
  for (int g = 0; g < GP; ++g) {
    mx[g] = -INFINITY;
    sum[g] = 0;
    if (g >= rows) continue;
    for (int sp = threadIdx.x; sp < a.splits; sp += blockDim.x) {
      const float* part = a.partial + partial_index(bh0 + g, sp, a.splits, D);
      const float pm = __ldcg(part), pl = __ldcg(part + 1);
      if (pm == -INFINITY) continue;  // a split with no keys
      const float top = fmaxf(mx[g], pm);
      sum[g] = sum[g] * __expf(mx[g] - top) + pl * __expf(pm - top);
      mx[g] = top;
    }
  }
  block_reduce(mx, true, head_max);
#pragma unroll
  for (int g = 0; g < GP; ++g)
    if (g < rows) sum[g] = mx[g] == -INFINITY ? 0.0f : sum[g] * __expf(mx[g] - head_max[g]);
  block_reduce(sum, false, head_sum);
  float acc[GP][kPerLane] = {};
#pragma unroll kSplitsInFlight
  for (int sp = warp; sp < a.splits; sp += kWarps) {
#pragma unroll
    for (int g = 0; g < GP; ++g) {
      if (g >= rows) continue;
      const float* part = a.partial + partial_index(bh0 + g, sp, a.splits, D);
      const float pm = __ldcg(part);
      float o[kPerLane];
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) o[i] = __ldcg(part + 2 + lane + kWarp * i);
      const float f = pm == -INFINITY ? 0.0f : __expf(pm - head_max[g]);
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) acc[g][i] += f * o[i];
    }
  }
#pragma unroll
  for (int g = 0; g < GP; ++g)
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) sm_acc[warp][g][lane + kWarp * i] = acc[g][i];
  __syncthreads();
  for (int idx = threadIdx.x; idx < rows * D; idx += blockDim.x) {
    const int g = idx / D, t = idx % D;
    float o = 0;
    for (int w = 0; w < kWarps; ++w) o += sm_acc[w][g][t];
    static_cast<T*>(a.o)[(bh0 + g) * D + t] = from_f<T>(o / head_sum[g]);
  }
}

// The end of a split block: ROWS softmax states (m in units of the scaled score, l, and the
// unnormalised outputs, in shared memory) merged into one partial per query head of the
// block's r.n; then the last block of the block row merges the splits' partials into the
// output. `sm_acc` is free once this block's partial is written: the merge keeps its warps'
// sums there.
template <class T, int D, int GP, int ROWS>
__device__ void finish_split(const DecodeArgs& a, const BlockRows& r, int split, const float (*sm_m)[GP],
                             const float (*sm_l)[GP], float (*sm_acc)[GP][D]) {
  for (int idx = threadIdx.x; idx < r.n * D; idx += blockDim.x) {
    const int g = idx / D, t = idx % D;
    float mx = -INFINITY;
    for (int w = 0; w < ROWS; ++w) mx = fmaxf(mx, sm_m[w][g]);
    float lsum = 0, o = 0;
    for (int w = 0; w < ROWS; ++w) {
      const float f = sm_m[w][g] == -INFINITY ? 0.0f : __expf(sm_m[w][g] - mx);
      lsum += sm_l[w][g] * f;
      o += sm_acc[w][g][t] * f;
    }
    float* part = a.partial + partial_index(r.head0 + g, split, a.splits, D);
    if (t == 0) {
      part[0] = mx;
      part[1] = lsum;
    }
    part[2 + t] = o;
  }
  __shared__ bool last;
  __threadfence();  // this block's partials visible to the others before its ticket
  __syncthreads();
  const std::int64_t row = blockIdx.x;  // the block row's ticket
  if (threadIdx.x == 0) {
    last = atomicAdd(&tickets(a)[row], 1u) == static_cast<unsigned>(a.splits - 1);
    if (last) tickets(a)[row] = 0;  // ready for the next launch
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  merge_splits<T, D, GP>(a, r, sm_acc);
}

// ---- fp32: CUDA cores ----

// Block (block row, split): each half-warp walks its own keys of the split and keeps its own
// softmax state; a lane holds E = D/16 elements of the block's query rows (GP of them in
// registers, r.n used), of the key and value rows and of the outputs. Half-warp rows halve
// the shuffles and exponentials per key against a warp per row.
template <class T, int D, int GP>
__global__ void __launch_bounds__(kWarps* kWarp) decode_split(DecodeArgs a) {
  gpu::pdl_allow_next();  // the next kernel may launch and prefetch what it can (overlap_launch)
  constexpr int kRowLanes = 16, kRows = kWarps * kWarp / kRowLanes;  // half-warps in the block
  constexpr int E = D / kRowLanes;
  const int lane = threadIdx.x % kRowLanes, row_group = threadIdx.x / kRowLanes;
  const BlockRows r = block_rows<GP, GP == kDecodeFp32Rows>(a);  // only 8 rows take passes
  const std::int64_t b = r.b, kvh = r.kvh;
  const int rows = r.n;
  const int split = blockIdx.y;
  const std::int64_t skv = keys_attended(a, b);
  const std::int64_t chunk = (skv + a.splits - 1) / a.splits;
  const std::int64_t k0 = split * chunk, k1 = min(skv, k0 + chunk);
  const float scale = rsqrtf(static_cast<float>(D));
  __shared__ std::int32_t table[kMaxSplitKeys / 16 + 2];
  load_block_table(a, b, k0, k1, table);
  gpu::pdl_wait();  // q and the newest key come from the previous kernel (overlap_launch)

  float q[GP][E], acc[GP][E], m[GP], l[GP];
  for (int g = 0; g < GP; ++g) {
    // A row past the block's scores its last row's query again, and is never written.
    const T* row = static_cast<const T*>(a.q) + (r.head0 + min(g, rows - 1)) * D;
    const auto c = reinterpret_cast<const Chunk<T, E>*>(row)[lane];
    for (int e = 0; e < E; ++e) {
      q[g][e] = to_f(c.x[e]) * scale;
      acc[g][e] = 0;
    }
    m[g] = -INFINITY;
    l[g] = 0;
  }
  const T* kbase = static_cast<const T*>(a.k);
  const T* vbase = static_cast<const T*>(a.v);
  // kUnroll keys per half-warp per step, all loads issued before any use: enough bytes in
  // flight to cover HBM latency. The loop runs warp-uniform (the shuffles need both halves);
  // keys past the split's end are loaded from a valid row and left out.
  const int warp = threadIdx.x / kWarp, half = (threadIdx.x % kWarp) / kRowLanes;
  for (std::int64_t w0 = k0 + warp * 2 * kUnroll; w0 < k1; w0 += kWarps * 2 * kUnroll) {
    const std::int64_t j0 = w0 + half * kUnroll;
    Chunk<T, E> kc[kUnroll], vc[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t row = key_row(a, b, kvh, k0, min(j0 + u, k1 - 1), table);
      kc[u] = reinterpret_cast<const Chunk<T, E>*>(kbase + row)[lane];
      vc[u] = reinterpret_cast<const Chunk<T, E>*>(vbase + row)[lane];
    }
    // The kUnroll keys' scores first, then one softmax update for all of them: one rescale
    // of the output per step, not per key.
    float kf[kUnroll][E];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      for (int e = 0; e < E; ++e) kf[u][e] = to_f(kc[u].x[e]);
    for (int g = 0; g < GP; ++g) {  // all GP rows: a branch on the used ones cost registers
      float sc[kUnroll];
      float m_new = m[g];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        float dot = 0;
        for (int e = 0; e < E; ++e) dot += q[g][e] * kf[u][e];
        for (int off = kRowLanes / 2; off > 0; off /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, off);
        sc[u] = j0 + u < k1 ? dot : -INFINITY;
        m_new = fmaxf(m_new, sc[u]);
      }
      if (m_new == -INFINITY) continue;  // no valid key yet
      const float c = __expf(m[g] - m_new);
      l[g] *= c;
      for (int e = 0; e < E; ++e) acc[g][e] *= c;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const float p = __expf(sc[u] - m_new);
        l[g] += p;
        for (int e = 0; e < E; ++e) acc[g][e] += p * to_f(vc[u].x[e]);
      }
      m[g] = m_new;
    }
  }
  __shared__ float sm_m[kRows][GP], sm_l[kRows][GP], sm_acc[kRows][GP][D];
  for (int g = 0; g < GP; ++g) {
    if (lane == 0) {
      sm_m[row_group][g] = m[g];
      sm_l[row_group][g] = l[g];
    }
    for (int e = 0; e < E; ++e) sm_acc[row_group][g][lane * E + e] = acc[g][e];
  }
  __syncthreads();
  finish_split<T, D, GP, kRows>(a, r, split, sm_m, sm_l, sm_acc);
}

#if ROOFTOP_GPU_HAS_MMA_SYNC  // mma.sync, ldmatrix, cp.async: NVIDIA PTX
// ---- bf16 and fp16: tensor cores ----

// The group's query heads are the rows of one m16n8k16 tile (rows past the group are zeros:
// any group up to 16 costs the same per key), so a key costs two MMAs and a share of an
// ldmatrix instead of the CUDA-core kernel's ~70 instructions, which held it below the HBM
// roof. Keys stream through a cp.async ring in
// shared memory, kMmaStages deep; each warp takes 16 keys of every stage and keeps its own
// softmax state.
constexpr int kMmaStageKeys = kWarps * 16, kMmaStages = 3;

// The ring, plus slack to start it 256-byte aligned: ldmatrix addresses step through a row
// by XOR on the shared address, which needs rows on 256-byte (D = 128) boundaries.
template <class T, int D>
constexpr int mma_ring_bytes() {
  return kMmaStages * 2 * kMmaStageKeys * D * static_cast<int>(sizeof(T)) + 256;
}

// At head dim 64 the ring lets four blocks share a multiprocessor (Hopper): their registers
// are held to 128 a thread, which the 16-row kernel passed (157) without the bound. Head dim
// 128 holds two blocks by shared memory whatever the registers: no bound (0).
template <class T, int D, int GP>
__global__ void __launch_bounds__(kWarps* kWarp, D == 64 ? 4 : 0) decode_split_mma(DecodeArgs a) {
  using namespace tensor_core;
  static_assert(GP <= 16, "a group's rows are one m16 tile");
  gpu::pdl_allow_next();  // the next kernel may launch and prefetch what it can (overlap_launch)
  static_assert(kWarps * GP * D * 4 <= kMmaStages * 2 * kMmaStageKeys * D * static_cast<int>(sizeof(T)),
                "the warps' outputs reuse the ring");
  constexpr int kChunks = D / 8;  // 16-byte chunks a row
  extern __shared__ uint4 ring_raw[];
  // [stage][K, V][kMmaStageKeys][D], swizzled rows
  T* ring = reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(ring_raw) + (256 - smem_address(ring_raw) % 256) % 256);
  __shared__ __align__(256) T sq[16 * D];
  __shared__ std::int32_t table[kMaxSplitKeys / 16 + 2];
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  const BlockRows r = block_rows<GP, false>(a);  // the whole group: one pass
  const std::int64_t b = r.b, kvh = r.kvh;
  const int split = blockIdx.y;
  const std::int64_t skv = keys_attended(a, b);
  const std::int64_t chunk = (skv + a.splits - 1) / a.splits;
  const std::int64_t k0 = split * chunk, k1 = min(skv, k0 + chunk);
  load_block_table(a, b, k0, k1, table);
  gpu::pdl_wait();  // q and the newest key come from the previous kernel (overlap_launch)

  const T* kbase = static_cast<const T*>(a.k);
  const T* vbase = static_cast<const T*>(a.v);
  const int stages = static_cast<int>((k1 - k0 + kMmaStageKeys - 1) / kMmaStageKeys);
  // Stage `st` into its slot; keys past the split's end are zeros (and masked below).
  auto load_stage = [&](int st) {
    T* slot = ring + (st % kMmaStages) * 2 * kMmaStageKeys * D;
    for (int i = threadIdx.x; i < kMmaStageKeys * kChunks; i += kWarps * kWarp) {
      const int key = i / kChunks, c = i % kChunks;
      const std::int64_t j = k0 + static_cast<std::int64_t>(st) * kMmaStageKeys + key;
      const bool valid = j < k1;
      const std::int64_t row = key_row(a, b, kvh, k0, valid ? j : k0, table) + c * 8;
      cp_async_16(slot + swizzled<D>(key, c), kbase + row, valid ? 16 : 0);
      cp_async_16(slot + kMmaStageKeys * D + swizzled<D>(key, c), vbase + row, valid ? 16 : 0);
    }
  };
  for (int st = 0; st < kMmaStages - 1; ++st) {
    if (st < stages) load_stage(st);
    cp_async_commit();
  }
  for (int i = threadIdx.x; i < 16 * kChunks; i += kWarps * kWarp) {
    const int row = i / kChunks, c = i % kChunks;
    uint4 v{};
    if (row < r.n) v = reinterpret_cast<const uint4*>(static_cast<const T*>(a.q) + (r.head0 + row) * D)[c];
    *reinterpret_cast<uint4*>(sq + swizzled<D>(row, c)) = v;
  }
  __syncthreads();
  unsigned qa[D / 16][4];
  const unsigned q_lane = lane_address<T, D>(sq, lane % 16, lane / 16);
#pragma unroll
  for (int kd = 0; kd < D / 16; ++kd) ldmatrix_x4(qa[kd], step_address<T, D>(q_lane, kd, 0));

  float o[D / 8][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0, 0};
  const float scale_log2 = 1.4426950408889634f * rsqrtf(static_cast<float>(D));
  for (int st = 0; st < stages; ++st) {
    cp_async_wait<kMmaStages - 2>();
    __syncthreads();  // stage st landed for all; the slot of st - 1 is free again
    if (st + kMmaStages - 1 < stages) load_stage(st + kMmaStages - 1);
    cp_async_commit();
    const T* slot = ring + (st % kMmaStages) * 2 * kMmaStageKeys * D;
    const unsigned k_lane = lane_address<T, D>(slot, (lane / 16) * 8 + lane % 8, (lane / 8) % 2);
    const unsigned v_lane = lane_address<T, D>(slot + kMmaStageKeys * D, ((lane / 8) % 2) * 8 + lane % 8, lane / 16);

    float s[2][4] = {};
#pragma unroll
    for (int kd = 0; kd < D / 16; ++kd) {
      unsigned kb[4];
      ldmatrix_x4(kb, step_address<T, D>(k_lane, kd, warp * 16));
      Mma<T>::run(s[0], qa[kd], kb[0], kb[1]);
      Mma<T>::run(s[1], qa[kd], kb[2], kb[3]);
    }
    const std::int64_t j0 = k0 + static_cast<std::int64_t>(st) * kMmaStageKeys + warp * 16;
    if (j0 + 16 > k1) mask_scores(s, 0, 0, static_cast<int>(k1 - j0), false);
    float corr[2];
    if (__any_sync(0xffffffffu, online_softmax(s, row_max, row_sum, corr, scale_log2))) rescale_rows(o, corr);
    unsigned pa[4];
    probabilities_as_a<T>(s, 0, pa);
#pragma unroll
    for (int dp = 0; dp < D / 16; ++dp) {
      unsigned vb[4];
      ldmatrix_x4_trans(vb, step_address<T, D>(v_lane, dp, warp * 16));
      Mma<T>::run(o[2 * dp], pa, vb[0], vb[1]);
      Mma<T>::run(o[2 * dp + 1], pa, vb[2], vb[3]);
    }
  }
  cp_async_wait<0>();
  __syncthreads();  // the ring is free: it holds the warps' outputs now

  // Row g of each warp's state lives in quad g % 8: rows 0-7 in accumulator elements 0 and 1
  // (state [0]), rows 8-15 in elements 2 and 3 (state [1]). Rows past r.n are not written.
  __shared__ float sm_m[kWarps][GP], sm_l[kWarps][GP];
  auto sm_acc = reinterpret_cast<float(*)[GP][D]>(ring);  // [kWarps][GP][D], smaller than the ring
#pragma unroll
  for (int half = 0; half < (GP > 8 ? 2 : 1); ++half) {
    float sum = row_sum[half];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const int g = lane / 4 + 8 * half;
    if (g < GP && g < r.n) {
      if (lane % 4 == 0) {
        sm_m[warp][g] = row_max[half] * rsqrtf(static_cast<float>(D));  // the scaled score's units
        sm_l[warp][g] = sum;
      }
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt) {
        sm_acc[warp][g][dt * 8 + (lane % 4) * 2] = o[dt][2 * half];
        sm_acc[warp][g][dt * 8 + (lane % 4) * 2 + 1] = o[dt][2 * half + 1];
      }
    }
  }
  __syncthreads();
  finish_split<T, D, GP, kWarps>(a, r, split, sm_m, sm_l, sm_acc);
}

// The kernel a dtype, head dim and group run, and its dynamic shared memory.
#endif  // ROOFTOP_GPU_HAS_MMA_SYNC

// Why bf16 and fp16 decode is skipped in a build without mma.sync (HIP: MFMA code of its own is needed).
[[maybe_unused]] constexpr const char* kNoMmaDecode =
    "bf16/fp16 decode runs on tensor cores through mma.sync, ldmatrix and cp.async (NVIDIA PTX); this HIP build "
    "runs the fp32 path only";

struct SplitKernel {
  void (*kernel)(DecodeArgs);
  int shared;
};

template <class T, int D, int GP>
SplitKernel split_kernel() {
  if constexpr (std::is_same_v<T, float>) {
    return {decode_split<T, D, GP>, 0};
  } else {
#if !ROOFTOP_GPU_HAS_MMA_SYNC
    throw PointSkipped(kNoMmaDecode);
#else
    static const bool attribute_set = [] {
      ROOFTOP_GPU_CHECK(cudaFuncSetAttribute(decode_split_mma<T, D, GP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             mma_ring_bytes<T, D>()));
      return true;
    }();
    (void)attribute_set;
    return {decode_split_mma<T, D, GP>, mma_ring_bytes<T, D>()};
#endif
  }
}

// The kernel for a group: its rows GP, the group rounded up to a power of two, the extra rows
// masked. Five kernels a dtype and head dim (four for fp32, whose larger groups take two
// passes of 8 rows) run every group from 1 to 16, where one kernel a group would be 16.
template <class T, int D>
SplitKernel split_group(std::int64_t g) {
  if (g <= 1) return split_kernel<T, D, 1>();
  if (g <= 2) return split_kernel<T, D, 2>();
  if (g <= 4) return split_kernel<T, D, 4>();
  if constexpr (std::is_same_v<T, float>) {
    return split_kernel<T, D, kDecodeFp32Rows>();
  } else {
    if (g <= 8) return split_kernel<T, D, 8>();
    return split_kernel<T, D, 16>();
  }
}

SplitKernel split_kernel_for(Dtype dtype, std::int64_t d, std::int64_t g) {
  if (g < 1 || g > kMaxDecodeGroup)
    throw std::invalid_argument("the split decode kernel runs groups of 1 to 16 query heads per KV head, not " +
                                std::to_string(g));
  if (d != 64 && d != 128)
    throw std::invalid_argument("the split decode kernel runs head dims 64 and 128, not " + std::to_string(d));
  switch (dtype) {
    case Dtype::fp32: return d == 64 ? split_group<float, 64>(g) : split_group<float, 128>(g);
    case Dtype::bf16: return d == 64 ? split_group<__nv_bfloat16, 64>(g) : split_group<__nv_bfloat16, 128>(g);
    default: return d == 64 ? split_group<__half, 64>(g) : split_group<__half, 128>(g);
  }
}

}  // namespace

int decode_splits(std::int64_t b, std::int64_t hkv, std::int64_t skv, int resident_blocks) {
  const std::int64_t pairs = b * hkv, fewest = (skv + kMaxSplitKeys - 1) / kMaxSplitKeys;
  const std::int64_t most = std::max<std::int64_t>(fewest, skv / kMinSplitKeys);
  // The split count with the least estimated time: waves x (the ring stages of kMinSplitKeys
  // keys a split walks + a block's fixed cost), as each block's stages are latency-bound
  // steps of about equal time; the fixed cost, its start (Q, the ring's first stages in
  // flight) and its ticket, is about two stages. Ties go to fewer splits (a smaller merge). A last wave part-full costs a
  // whole one (a 40%-full last wave cost a fifth); one split fewer than a whole wave needs
  // costs nothing: on the H100 `tune` chose 32 splits for B1 32k keys (256 of 264 resident
  // blocks; x1.05 over 33) and 4 for B8 5000 (x1.06 over 8), as this does.
  constexpr std::int64_t kBlockStartStages = 2;
  std::int64_t best = fewest, best_cost = std::numeric_limits<std::int64_t>::max();
  for (std::int64_t splits = std::max<std::int64_t>(1, fewest); splits <= std::min(most, kDecodeMaxSplits); ++splits) {
    const std::int64_t blocks = pairs * splits, waves = (blocks + resident_blocks - 1) / resident_blocks;
    const std::int64_t keys = (skv + splits - 1) / splits, stages = (keys + kMinSplitKeys - 1) / kMinSplitKeys;
    const std::int64_t cost = waves * (stages + kBlockStartStages);
    if (cost < best_cost) {
      best = splits;
      best_cost = cost;
    }
  }
  return static_cast<int>(best);
}

std::int64_t decode_workspace_floats(std::int64_t b, std::int64_t hq, std::int64_t hkv, std::int64_t d, int splits) {
  (void)hkv;
  return b * hq * splits * (d + 2) + b * hq;  // partials, then a ticket per block row (at most one a query head)
}

int decode_resident_blocks(Dtype dtype, std::int64_t d, std::int64_t group) {
  int device = 0, sms = 0, per_sm = 0;
  ROOFTOP_GPU_CHECK(cudaGetDevice(&device));
  ROOFTOP_GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const SplitKernel k = split_kernel_for(dtype, d, group);
  ROOFTOP_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.kernel, kWarps * kWarp, k.shared));
  return std::max(1, per_sm) * sms;
}

void launch_decode(const DecodeArgs& a) {
  if (a.hkv <= 0 || a.hq % a.hkv != 0)
    throw std::invalid_argument("decode: " + std::to_string(a.hq) + " query heads are not a multiple of " +
                                std::to_string(a.hkv) + " KV heads");
  const std::int64_t group = a.hq / a.hkv;
  const SplitKernel k = split_kernel_for(a.dtype, a.d, group);
  const std::int64_t rows = a.b * a.hkv * decode_passes(a.dtype, group);  // block rows: grid x
  const auto overlap_supported = [&] {  // asked once, when a launch first wants it (every split kernel is built alike)
    static const bool supported = gpu::pdl_supported(reinterpret_cast<const void*>(k.kernel));
    return supported;
  };
  gpu::launch_pdl(a.overlap_launch && overlap_supported(), k.kernel,
                  dim3(static_cast<unsigned>(rows), static_cast<unsigned>(a.splits)), kWarps * kWarp,
                  static_cast<std::size_t>(k.shared), a);
  ROOFTOP_GPU_CHECK_LAUNCH("decode_split");
}

}  // namespace rooftop::attention
