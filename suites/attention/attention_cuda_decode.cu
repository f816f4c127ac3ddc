#include "suites/attention/attention_cuda_decode.cuh"
#include "suites/attention/attention_cuda_tensor_core.cuh"

#include <algorithm>
#include <cmath>

#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/vendors/gpu.hpp"

namespace rooftop::attention {
namespace {

constexpr int kWarps = 4;
constexpr int kWarp = 32;
constexpr int kUnroll = 4;  // 8 needs registers that cost a quarter of the occupancy and the speed

__device__ inline float to_f(float x) { return x; }
__device__ inline float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ inline float to_f(__half x) { return __half2float(x); }
template <class T>
__device__ inline T from_f(float x);
template <>
__device__ inline float from_f<float>(float x) { return x; }
template <>
__device__ inline __nv_bfloat16 from_f<__nv_bfloat16>(float x) { return __float2bfloat16(x); }
template <>
__device__ inline __half from_f<__half>(float x) { return __float2half(x); }

// E consecutive elements of a row, one lane's share, in one load (16 bytes for 16-bit
// types at D = 128).
template <class T, int E>
struct alignas(sizeof(T) * E > 16 ? 16 : sizeof(T) * E) Chunk {
  T x[E];
};

// Per partial: m, l, then D outputs, for each (b, hq, split).
__device__ inline std::int64_t partial_index(std::int64_t bh, int split, int splits, std::int64_t d) {
  return (bh * splits + split) * (d + 2);
}

// Keys stream through shared memory in stages of kStageKeys, kStages deep, by cp.async: the
// bytes in flight no longer cost registers (with the keys in registers, 168 of them held
// occupancy to 12 warps an SM and HBM to two thirds of its bandwidth).
constexpr int kRowLanes = 16, kRows = kWarps * kWarp / kRowLanes;  // half-warps in the block
constexpr int kStageKeys = kRows * kUnroll, kStages = 4;

template <class T, int D>
constexpr int ring_bytes() {
  return kStages * 2 * kStageKeys * D * static_cast<int>(sizeof(T));
}

// The split's blocks, by a ticket: the last of a (b, kvh) to finish merges their partials
// into the output rows, so no second kernel (and its launch gap) follows.
__device__ inline std::uint32_t* tickets(const DecodeArgs& a) {
  return reinterpret_cast<std::uint32_t*>(a.partial + a.b * a.hq * a.splits * (a.d + 2));
}

// Block (b, kvh, split): each half-warp takes kUnroll keys of every stage and keeps its own
// softmax state; a lane holds E = D/16 elements of the G queries, of the key and value rows
// and of the outputs. Half-warp rows halve the shuffles and exponentials per key against a
// warp per row, which bound the kernel well below the HBM roof.
template <class T, int D, int G>
__global__ void __launch_bounds__(kWarps* kWarp) decode_split(DecodeArgs a) {
  constexpr int E = D / kRowLanes, kPieces = D * static_cast<int>(sizeof(T)) / 16;  // 16-byte pieces a row
  extern __shared__ uint4 ring_raw[];
  T* ring = reinterpret_cast<T*>(ring_raw);  // [kStages][K, V][kStageKeys][D]
  const int lane = threadIdx.x % kRowLanes, row_group = threadIdx.x / kRowLanes;
  const std::int64_t bk = blockIdx.x, b = bk / a.hkv, kvh = bk % a.hkv;
  const int split = blockIdx.y;
  const std::int64_t chunk = (a.skv + a.splits - 1) / a.splits;
  const std::int64_t k0 = split * chunk, k1 = min(a.skv, k0 + chunk);
  const float scale = rsqrtf(static_cast<float>(D));

  // A paged cache: the split's block ids once into shared memory, so no key waits on a
  // table load before its own.
  __shared__ std::int32_t table[kMaxSplitKeys / 16 + 2];
  const int block_shift = a.block == 32 ? 5 : 4;  // block sizes are 16 or 32
  const std::int64_t first_block = a.block ? k0 >> block_shift : 0;
  if (a.block) {
    const std::int64_t blocks = k1 > k0 ? (k1 - 1) / a.block - first_block + 1 : 0;
    for (std::int64_t i = threadIdx.x; i < blocks; i += blockDim.x)
      table[i] = a.block_table[b * (a.skv / a.block) + first_block + i];
  }
  __syncthreads();
  const T* kbase = static_cast<const T*>(a.k);
  const T* vbase = static_cast<const T*>(a.v);
  // Stage `st` into its slot: every thread copies pieces of the K and V rows; keys past the
  // split's end are zeros (and scored -inf below).
  const int stages = static_cast<int>((k1 - k0 + kStageKeys - 1) / kStageKeys);
  auto load_stage = [&](int st) {
    T* slot = ring + (st % kStages) * 2 * kStageKeys * D;
    for (int i = threadIdx.x; i < kStageKeys * kPieces; i += kWarps * kWarp) {
      const int key = i / kPieces, piece = i % kPieces;
      const std::int64_t j = k0 + static_cast<std::int64_t>(st) * kStageKeys + key;
      const bool valid = j < k1;
      std::int64_t row;
      if (a.block) {
        // Shifts, not a 64-bit division by the block size: that cost paging a fifth.
        const int jj = static_cast<int>(valid ? j : k0);
        const std::int64_t blk = table[(jj >> block_shift) - static_cast<int>(first_block)];
        row = ((blk * a.hkv + kvh) * a.block + (jj & (static_cast<int>(a.block) - 1))) * D;
      } else {
        row = ((b * a.hkv + kvh) * a.skv + (valid ? j : k0)) * D;
      }
      const int bytes = valid ? 16 : 0;
      tensor_core::cp_async_16(slot + key * D + piece * (16 / sizeof(T)), kbase + row + piece * (16 / sizeof(T)), bytes);
      tensor_core::cp_async_16(slot + (kStageKeys + key) * D + piece * (16 / sizeof(T)),
                               vbase + row + piece * (16 / sizeof(T)), bytes);
    }
  };
  for (int st = 0; st < kStages - 1; ++st) {
    if (st < stages) load_stage(st);
    tensor_core::cp_async_commit();
  }

  float q[G][E], acc[G][E], m[G], l[G];
  for (int g = 0; g < G; ++g) {
    const auto c = reinterpret_cast<const Chunk<T, E>*>(static_cast<const T*>(a.q) + ((b * a.hq + kvh * G + g) * D))[lane];
    for (int e = 0; e < E; ++e) {
      q[g][e] = to_f(c.x[e]) * scale;
      acc[g][e] = 0;
    }
    m[g] = -INFINITY;
    l[g] = 0;
  }
  for (int st = 0; st < stages; ++st) {
    tensor_core::cp_async_wait<kStages - 2>();
    __syncthreads();  // stage st landed for all; the slot of st - 1 is free again
    if (st + kStages - 1 < stages) load_stage(st + kStages - 1);
    tensor_core::cp_async_commit();

    const T* slot = ring + (st % kStages) * 2 * kStageKeys * D;
    const int key0 = row_group * kUnroll;  // this half-warp's first key of the stage
    const std::int64_t j0 = k0 + static_cast<std::int64_t>(st) * kStageKeys + key0;
    // The kUnroll keys' scores first, then one softmax update for all of them: one rescale
    // of the output per step, not per key (the kernel is bound by instructions, not bytes).
    float kf[kUnroll][E];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const auto kc = reinterpret_cast<const Chunk<T, E>*>(slot + (key0 + u) * D)[lane];
      for (int e = 0; e < E; ++e) kf[u][e] = to_f(kc.x[e]);
    }
    for (int g = 0; g < G; ++g) {
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
        const auto vc = reinterpret_cast<const Chunk<T, E>*>(slot + (kStageKeys + key0 + u) * D)[lane];
        for (int e = 0; e < E; ++e) acc[g][e] += p * to_f(vc.x[e]);
      }
      m[g] = m_new;
    }
  }
  tensor_core::cp_async_wait<0>();
  __syncthreads();  // the ring is free: it holds the half-warps' outputs now

  // The block's half-warps into one partial per query head.
  __shared__ float sm_m[kRows][G], sm_l[kRows][G];
  auto sm_acc = reinterpret_cast<float(*)[G][D]>(ring_raw);  // [kRows][G][D], smaller than the ring
  for (int g = 0; g < G; ++g) {
    if (lane == 0) {
      sm_m[row_group][g] = m[g];
      sm_l[row_group][g] = l[g];
    }
    for (int e = 0; e < E; ++e) sm_acc[row_group][g][lane * E + e] = acc[g][e];
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < G * D; idx += blockDim.x) {
    const int g = idx / D, t = idx % D;
    float mx = -INFINITY;
    for (int w = 0; w < kRows; ++w) mx = fmaxf(mx, sm_m[w][g]);
    float lsum = 0, o = 0;
    for (int w = 0; w < kRows; ++w) {
      const float f = sm_m[w][g] == -INFINITY ? 0.0f : __expf(sm_m[w][g] - mx);
      lsum += sm_l[w][g] * f;
      o += sm_acc[w][g][t] * f;
    }
    float* part = a.partial + partial_index(b * a.hq + kvh * G + g, split, a.splits, D);
    if (t == 0) {
      part[0] = mx;
      part[1] = lsum;
    }
    part[2 + t] = o;
  }

  // The last split block of this (b, kvh) merges all splits' partials into the output.
  __shared__ bool last;
  __threadfence();  // this block's partials visible before its ticket
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(&tickets(a)[bk], 1u) == static_cast<unsigned>(a.splits - 1);
    if (last) tickets(a)[bk] = 0;  // ready for the next launch
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int idx = threadIdx.x; idx < G * D; idx += blockDim.x) {
    const int g = idx / D, t = idx % D;
    const std::int64_t bh = b * a.hq + kvh * G + g;
    float mx = -INFINITY;
    for (int sp = 0; sp < a.splits; ++sp) mx = fmaxf(mx, __ldcg(a.partial + partial_index(bh, sp, a.splits, D)));
    float lsum = 0, o = 0;
    for (int sp = 0; sp < a.splits; ++sp) {
      const float* part = a.partial + partial_index(bh, sp, a.splits, D);
      const float pm = __ldcg(part);
      const float f = pm == -INFINITY ? 0.0f : __expf(pm - mx);
      lsum += __ldcg(part + 1) * f;
      o += __ldcg(part + 2 + t) * f;
    }
    static_cast<T*>(a.o)[bh * D + t] = from_f<T>(o / lsum);
  }
}

template <class T, int D, int G>
void launch_typed(const DecodeArgs& a) {
  constexpr int bytes = ring_bytes<T, D>();
  static const bool attribute_set = [] {
    ROOFTOP_GPU_CHECK(cudaFuncSetAttribute(decode_split<T, D, G>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    return true;
  }();
  (void)attribute_set;
  decode_split<T, D, G><<<dim3(static_cast<unsigned>(a.b * a.hkv), static_cast<unsigned>(a.splits)), kWarps * kWarp,
                          bytes, gpu::stream()>>>(a);
  ROOFTOP_GPU_CHECK_LAUNCH("decode_split");
}

template <class T, int D>
void launch_group(const DecodeArgs& a) {
  switch (a.hq / a.hkv) {
    case 1: return launch_typed<T, D, 1>(a);
    case 2: return launch_typed<T, D, 2>(a);
    case 4: return launch_typed<T, D, 4>(a);
    case 8: return launch_typed<T, D, 8>(a);
  }
}

template <class T>
void launch_dim(const DecodeArgs& a) {
  if (a.d == 64) launch_group<T, 64>(a);
  else launch_group<T, 128>(a);
}

}  // namespace

int decode_splits(std::int64_t b, std::int64_t hkv, std::int64_t skv, int resident_blocks) {
  const std::int64_t pairs = b * hkv, fewest = (skv + kMaxSplitKeys - 1) / kMaxSplitKeys;
  const std::int64_t most = std::max<std::int64_t>(fewest, skv / 256);
  // The fewest splits that fill at least one wave of resident blocks with a last wave at
  // least 90% full; else the best-filled count.
  std::int64_t best = fewest;
  double best_fill = 0;
  for (std::int64_t splits = fewest; splits <= most; ++splits) {
    const std::int64_t blocks = pairs * splits, waves = (blocks + resident_blocks - 1) / resident_blocks;
    const double fill = static_cast<double>(blocks) / static_cast<double>(waves * resident_blocks);
    if (blocks >= resident_blocks && fill >= 0.9) return static_cast<int>(splits);
    if (fill > best_fill + 1e-9) {
      best = splits;
      best_fill = fill;
    }
  }
  return static_cast<int>(best);
}

std::int64_t decode_workspace_floats(std::int64_t b, std::int64_t hq, std::int64_t hkv, std::int64_t d, int splits) {
  return b * hq * splits * (d + 2) + b * hkv;  // partials, then a ticket per (b, kvh)
}

namespace {
template <class T, int D>
int resident_group(std::int64_t g, int sms) {
  int per_sm = 0;
  const auto kernel = g == 1 ? decode_split<T, D, 1> : g == 2 ? decode_split<T, D, 2> : g == 4 ? decode_split<T, D, 4> : decode_split<T, D, 8>;
  ROOFTOP_GPU_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, ring_bytes<T, D>()));
  ROOFTOP_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kWarps * kWarp, ring_bytes<T, D>()));
  return std::max(1, per_sm) * sms;
}
template <class T>
int resident_dim(std::int64_t d, std::int64_t g, int sms) {
  return d == 64 ? resident_group<T, 64>(g, sms) : resident_group<T, 128>(g, sms);
}
}  // namespace

int decode_resident_blocks(Dtype dtype, std::int64_t d, std::int64_t group) {
  int device = 0, sms = 0;
  ROOFTOP_GPU_CHECK(cudaGetDevice(&device));
  ROOFTOP_GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  switch (dtype) {
    case Dtype::fp32: return resident_dim<float>(d, group, sms);
    case Dtype::bf16: return resident_dim<__nv_bfloat16>(d, group, sms);
    default: return resident_dim<__half>(d, group, sms);
  }
}

void launch_decode(const DecodeArgs& a) {
  switch (a.dtype) {
    case Dtype::fp32: return launch_dim<float>(a);
    case Dtype::bf16: return launch_dim<__nv_bfloat16>(a);
    case Dtype::fp16: return launch_dim<__half>(a);
    default: return;
  }
}

}  // namespace rooftop::attention
