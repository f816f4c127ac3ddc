#pragma once
// The GEMV's kernel and its launches (cuda_gemv.cuh says what it computes). Each compiled
// configuration (rows a block x threads) is instantiated in a file of its own,
// cuda_gemv_rRtT.cu: every one unrolls 8 row counts x 2 weight types, and one file held all
// of them for most of a CUDA build's time on two cores.
#include "suites/inference/cuda_gemv_launch.hpp"

#include "devices/cuda/gpu_runtime.hpp"
#include "suites/inference/cuda_activation.cuh"
#include "suites/inference/cuda_rope_cache.cuh"
#include "suites/inference/cuda_pdl.cuh"

namespace rooftop::inference::kernels::gemv_detail {

constexpr int kUnroll = 2;  // 16-byte chunks of each row in flight a thread

__device__ inline void dot8(const uint4& w, const uint4& x, float& acc) {
  const auto* wp = reinterpret_cast<const __nv_bfloat162*>(&w);
  const auto* xp = reinterpret_cast<const __nv_bfloat162*>(&x);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 a = __bfloat1622float2(wp[i]), b = __bfloat1622float2(xp[i]);
    acc = fmaf(a.x, b.x, acc);
    acc = fmaf(a.y, b.y, acc);
  }
}

__device__ inline float2 e4m3x2_to_float2(__nv_fp8x2_storage_t v) {
  const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(v, __NV_E4M3);  // exact: e4m3 fits fp16
  return __half22float2(__half2(h));
}

// 16 e4m3 weights against 16 e4m3 inputs already widened: the products are exact in fp32.
__device__ inline void dot16_fp8(const uint4& w, const float2 (&x)[8], float& acc) {
  const auto* wp = reinterpret_cast<const __nv_fp8x2_storage_t*>(&w);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const float2 a = e4m3x2_to_float2(wp[i]);
    acc = fmaf(a.x, x[i].x, acc);
    acc = fmaf(a.y, x[i].y, acc);
  }
}

__device__ inline float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// A block streams kRows weight rows (rows kRows b .. kRows b + kRows - 1, or for SwiGLU
// kRows / 2 gate rows and their up rows), its threads side by side along K, and applies
// each to the M rows of x; the partial sums meet in shared memory, in a fixed order (the
// result does not depend on timing). Spreading K over the block, not a row over a warp,
// keeps loads in flight when N is small (2048 rows gave each multiprocessor 8 warps).
// kFp8: W and x e4m3, 16 to a 16-byte chunk; each x chunk is widened once and meets the
// block's rows; the sums are scaled by fp8.output_scale.
// 8 values of row m of the normalised input (GemvNorm), from chunk c: h x inv x weight,
// rounded to bf16 as the norm kernel stores them.
__device__ inline uint4 normed_chunk(const GemvNorm& norm, int m, std::int64_t c, float inv) {
  const float4* hp = reinterpret_cast<const float4*>(norm.h + m * norm.row_stride + 8 * c);
  const float4* wp = reinterpret_cast<const float4*>(norm.weight + 8 * c);
  const float4 h0 = hp[0], h1 = hp[1], w0 = __ldg(wp), w1 = __ldg(wp + 1);
  uint4 out;
  auto* o = reinterpret_cast<__nv_bfloat162*>(&out);
  o[0] = __floats2bfloat162_rn(h0.x * inv * w0.x, h0.y * inv * w0.y);
  o[1] = __floats2bfloat162_rn(h0.z * inv * w0.z, h0.w * inv * w0.w);
  o[2] = __floats2bfloat162_rn(h1.x * inv * w1.x, h1.y * inv * w1.y);
  o[3] = __floats2bfloat162_rn(h1.z * inv * w1.z, h1.w * inv * w1.w);
  return out;
}

// The RoPE epilogue's blocks: the first rope_pair_blocks take kRows / 2 rotary pairs of q
// and k each, the rest kRows v rows each.
__host__ __device__ inline std::int64_t rope_pair_blocks(const GemvRope& r, int rows) {
  const std::int64_t pairs = (r.heads + r.kv_heads) * (r.d / 2), per_block = rows / 2;
  return (pairs + per_block - 1) / per_block;
}

template <int M, int kRows, int kThreads, bool kFp8, bool kNorm>
__global__ void __launch_bounds__(kThreads) gemv_kernel(const uint4* __restrict__ x, const uint4* __restrict__ w,
                                                        void* __restrict__ y, std::int64_t n, std::int64_t chunks,
                                                        GemvEpilogue epilogue, GemvFp8 fp8, GemvNorm norm, GemvRope rope) {
  const bool swiglu = epilogue == GemvEpilogue::swiglu;
  const bool rope_epilogue = epilogue == GemvEpilogue::rope_cache;
  // The RoPE epilogue's q and k blocks pair rows i and i + d/2 of a head, as SwiGLU pairs
  // gate and up rows: `paired` says this block's slots hold pairs.
  const std::int64_t pair_blocks = rope_epilogue ? rope_pair_blocks(rope, kRows) : 0;
  const bool paired = swiglu || (rope_epilogue && blockIdx.x < pair_blocks);
  const std::int64_t half = n / 2, half_d = rope.d / 2;
  std::int64_t row[kRows];
  bool valid[kRows];
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    // Pairs: the first rows in the first half of the slots, their partners in the second.
    constexpr int kPairs = kRows / 2;
    const std::int64_t pair = kPairs * static_cast<std::int64_t>(blockIdx.x) + i % kPairs;
    if (swiglu) {
      row[i] = pair + (i / kPairs) * half;
      valid[i] = pair < half;
    } else if (paired) {  // pair p: head p / (d/2), rows j and j + d/2 of it
      valid[i] = pair < (rope.heads + rope.kv_heads) * half_d;
      row[i] = (pair / half_d) * rope.d + pair % half_d + (i / kPairs) * half_d;
    } else {
      const std::int64_t first = rope_epilogue ? (rope.heads + rope.kv_heads) * rope.d - pair_blocks * kRows : 0;
      row[i] = first + kRows * static_cast<std::int64_t>(blockIdx.x) + i;
      valid[i] = row[i] < n;
    }
  }
  const uint4* wr[kRows];
#pragma unroll
  for (int i = 0; i < kRows; ++i) wr[i] = w + (valid[i] ? row[i] : row[0]) * chunks;  // an idle row rereads row 0
  float acc[kRows][M] = {};
  uint4 a[kUnroll][kRows];
  const auto load_weights = [&](std::int64_t c0) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t c = c0 + kThreads * u;
#pragma unroll
      for (int i = 0; i < kRows; ++i) a[u][i] = c < chunks ? __ldcs(wr[i] + c) : uint4{};  // each weight read once
    }
  };
  // Weights never change: their first loads go out before the wait for the kernel that
  // writes x, and overlap its tail.
  pdl_allow_next();
  load_weights(threadIdx.x);
  pdl_wait();
  constexpr int kWarps = kThreads / 32;
  [[maybe_unused]] __shared__ float inv_rms[M];
  if constexpr (kNorm) {  // each row's mean square, the block's threads along K
    __shared__ float squares[kWarps][M];
    const std::int64_t k = chunks * 8;
#pragma unroll
    for (int m = 0; m < M; ++m) {
      float sq = 0;
      for (std::int64_t i = 4 * threadIdx.x; i < k; i += 4 * kThreads) {
        const float4 v = *reinterpret_cast<const float4*>(norm.h + m * norm.row_stride + i);
        sq += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
      }
      sq = warp_sum(sq);
      if (threadIdx.x % 32 == 0) squares[threadIdx.x / 32][m] = sq;
    }
    __syncthreads();
    if (threadIdx.x < M) {
      float t = 0;
      for (int wp = 0; wp < kWarps; ++wp) t += squares[wp][threadIdx.x];
      inv_rms[threadIdx.x] = rsqrtf(t / static_cast<float>(k) + norm.eps);
    }
    __syncthreads();
  }
  for (std::int64_t c0 = threadIdx.x; c0 < chunks; c0 += kThreads * kUnroll) {
    if (c0 != threadIdx.x) load_weights(c0);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t c = c0 + kThreads * u;
      if (c >= chunks) break;
#pragma unroll
      for (int m = 0; m < M; ++m) {
        uint4 xm;
        if constexpr (kNorm) xm = normed_chunk(norm, m, c, inv_rms[m]);
        else xm = __ldg(x + m * chunks + c);
        if constexpr (kFp8) {
          float2 xf[8];
          const auto* xp = reinterpret_cast<const __nv_fp8x2_storage_t*>(&xm);
#pragma unroll
          for (int j = 0; j < 8; ++j) xf[j] = e4m3x2_to_float2(xp[j]);
#pragma unroll
          for (int i = 0; i < kRows; ++i) dot16_fp8(a[u][i], xf, acc[i][m]);
        } else {
#pragma unroll
          for (int i = 0; i < kRows; ++i) dot8(a[u][i], xm, acc[i][m]);
        }
      }
    }
  }
  __shared__ float partial[kWarps][kRows][M];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < kRows; ++i)
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const float v = warp_sum(acc[i][m]);
      if (lane == 0) partial[warp][i][m] = v;
    }
  __syncthreads();
  const int i = threadIdx.x / M, m = threadIdx.x % M;
  if (i >= (paired ? kRows / 2 : kRows) || !valid[i]) return;
  const auto total = [&](int r) {
    float t = 0;
    for (int wp = 0; wp < kWarps; ++wp) t += partial[wp][r][m];
    return t;
  };
  const float s = total(i) * fp8.output_scale;
  if (rope_epilogue) {  // rope_cache_kernel's arithmetic, on the sums before they would be stored
    const std::int64_t pos = *rope.start, r = row[i], head = r / rope.d, j = r % rope.d;
    const auto with_bias = [&](float v, std::int64_t at) { return v + (rope.bias ? rope.bias[at] : 0.0f); };
    if (!paired) {  // a v row
      const std::int64_t g = head - rope.heads - rope.kv_heads;
      static_cast<__nv_bfloat16*>(rope.v_cache)[cache_row(rope.cache, m, g, pos, rope.kv_heads, rope.d) + j] =
          __float2bfloat16(with_bias(s, r));
      return;
    }
    const float a = with_bias(s, r), b = with_bias(total(i + kRows / 2) * fp8.output_scale, r + half_d);
    const float2 cs = reinterpret_cast<const float2*>(rope.table)[pos * half_d + j];
    const float2 rotated = rotate_pair(a, b, cs);
    __nv_bfloat16* out = head < rope.heads
                             ? static_cast<__nv_bfloat16*>(rope.q) + (m * rope.heads + head) * rope.d
                             : static_cast<__nv_bfloat16*>(rope.k_cache) +
                                   cache_row(rope.cache, m, head - rope.heads, pos, rope.kv_heads, rope.d);
    out[j] = __float2bfloat16(rotated.x);
    out[j + half_d] = __float2bfloat16(rotated.y);
  } else if (swiglu) {
    const float up = total(i + kRows / 2) * fp8.output_scale;
    store_activation(y, m * half + row[i], s / (1.0f + __expf(-s)) * up, fp8.act_inverse);
  } else if (epilogue == GemvEpilogue::accumulate) {
    static_cast<float*>(y)[m * n + row[i]] += s;
  } else {
    static_cast<float*>(y)[m * n + row[i]] = s;
  }
}

template <int M, int R, int T>
void launch(const void* x, const void* w, void* y, std::int64_t n, std::int64_t k, GemvEpilogue e, const GemvFp8* fp8,
            const GemvNorm* norm, const GemvRope* rope) {
  const GemvRope r = e == GemvEpilogue::rope_cache ? *rope : GemvRope{};
  const std::int64_t blocks = e == GemvEpilogue::swiglu ? (n / 2 + R / 2 - 1) / (R / 2)
                              : e == GemvEpilogue::rope_cache
                                  ? rope_pair_blocks(r, R) + (r.kv_heads * r.d + R - 1) / R
                                  : (n + R - 1) / R;
  const auto* xs = static_cast<const uint4*>(x);
  const auto* ws = static_cast<const uint4*>(w);
  if (fp8)
    launch_pdl(gemv_kernel<M, R, T, true, false>, static_cast<unsigned>(blocks), T, 0, xs, ws, y, n, k / 16, e, *fp8,
               GemvNorm{}, r);
  else if (norm)
    launch_pdl(gemv_kernel<M, R, T, false, true>, static_cast<unsigned>(blocks), T, 0, xs, ws, y, n, k / 8, e, GemvFp8{},
               *norm, r);
  else
    launch_pdl(gemv_kernel<M, R, T, false, false>, static_cast<unsigned>(blocks), T, 0, xs, ws, y, n, k / 8, e, GemvFp8{},
               GemvNorm{}, r);
}

template <int R, int T>
void launch_rows(const void* x, const void* w, void* y, std::int64_t m, std::int64_t n, std::int64_t k, GemvEpilogue e,
                 const GemvFp8* fp8, const GemvNorm* norm, const GemvRope* rope) {
  switch (m) {
    case 1: return launch<1, R, T>(x, w, y, n, k, e, fp8, norm, rope);
    case 2: return launch<2, R, T>(x, w, y, n, k, e, fp8, norm, rope);
    case 3: return launch<3, R, T>(x, w, y, n, k, e, fp8, norm, rope);
    case 4: return launch<4, R, T>(x, w, y, n, k, e, fp8, norm, rope);
    case 5: return launch<5, R, T>(x, w, y, n, k, e, fp8, norm, rope);
    case 6: return launch<6, R, T>(x, w, y, n, k, e, fp8, norm, rope);
    case 7: return launch<7, R, T>(x, w, y, n, k, e, fp8, norm, rope);
    default: return launch<8, R, T>(x, w, y, n, k, e, fp8, norm, rope);
  }
}

}  // namespace rooftop::inference::kernels::gemv_detail
