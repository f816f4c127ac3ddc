#pragma once
// The pieces both CPU decode streams share (the generic one, which widens bf16 to fp32, and
// the one on AVX512_BF16's dot products): the chunk of keys scored together, the running
// softmax state, the 16-way lane sums, the softmax step and the prefetch of a chunk ahead.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "harness/bf16.hpp"
#include "suites/attention/attention_cpu_exp.hpp"
#include "suites/attention/attention_data.hpp"

namespace rooftop::attention::decode_stream {

inline constexpr int kMaxRows = 32;      // query heads (x positions) sharing one KV head
inline constexpr int kChunk = 16;        // keys scored together before their softmax step
inline constexpr int kPrefetchChunks = 2;  // chunks asked for ahead (1-8 measured alike on a paged cache)

// 16 floats: one AVX-512 register, two AVX2 ones on that clone.
typedef float v16 __attribute__((vector_size(64)));
typedef std::int32_t i32x16 __attribute__((vector_size(64)));

// The running softmax state of `rows` query rows over the keys seen so far.
struct Partial {
  float m[kMaxRows], l[kMaxRows];
  float* acc;  // rows x D
};

// Sums across lanes, 16 vectors at once: each step adds the two halves of every group of
// lanes of two vectors into one (x's group sums, then y's), so that four steps turn 16
// vectors into one vector of their 16 sums with 30 shuffles and 15 adds, where summing
// each alone is a chain of 16 dependent adds. Lane i of the result is the sum of d[i].
// Always inlined, as every function here that takes or returns a v16: a copy out of line
// would be built for the generic ISA, which passes 64-byte vectors through memory, while the
// AVX-512 code calling it (the target_clones and the bf16 stream's pragma) passes them in
// registers. -Wno-psabi silences GCC's warning about exactly that.
template <int W>
[[gnu::always_inline]] inline v16 pair_halves(v16 x, v16 y) {
  i32x16 a, b;
  for (int i = 0; i < 16; ++i) {
    const int group = i / (2 * W) * (2 * W), at = i % (2 * W);
    a[i] = at < W ? group + at : 16 + group + at - W;
    b[i] = a[i] + W;
  }
  return __builtin_shuffle(x, y, a) + __builtin_shuffle(x, y, b);
}
[[gnu::always_inline]] inline v16 sum_each(const v16 (&d)[16]) {
  // The steps leave the sums in bit-reversed order; taking the inputs so undoes it.
  constexpr int kBitReversed[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
  v16 x[8], y[4], z[2];
  for (int i = 0; i < 8; ++i) x[i] = pair_halves<8>(d[kBitReversed[2 * i]], d[kBitReversed[2 * i + 1]]);
  for (int i = 0; i < 4; ++i) y[i] = pair_halves<4>(x[2 * i], x[2 * i + 1]);
  for (int i = 0; i < 2; ++i) z[i] = pair_halves<2>(y[2 * i], y[2 * i + 1]);
  return pair_halves<1>(z[0], z[1]);
}

// Keys [c, c + n) fit in one page of a paged cache (a chunk never crosses one), so rows
// are contiguous. This asks for the chunk kPrefetchChunks ahead of `c`: a paged cache's next
// pages lie anywhere (the table is shuffled, as a server's is), and even a contiguous
// cache's two streams per split, K and V, outrun the hardware prefetcher of one core.
inline void prefetch_ahead(const AttentionData& data, const void* k, const void* v, std::int64_t b, std::int64_t kvh,
                           std::int64_t c, std::int64_t end, int row_bytes, int element_bytes) {
  const std::int64_t ahead = c + kPrefetchChunks * kChunk, block = data.shape().block;
  if (ahead >= end) return;
  const auto* kp = static_cast<const char*>(k) + data.kv_offset(b, kvh, ahead) * element_bytes;
  const auto* vp = static_cast<const char*>(v) + data.kv_offset(b, kvh, ahead) * element_bytes;
  const std::int64_t keys = std::min<std::int64_t>({kChunk, end - ahead, block ? block - ahead % block : kChunk});
  for (std::int64_t off = 0; off < keys * row_bytes; off += 64) {
    __builtin_prefetch(kp + off);
    __builtin_prefetch(vp + off);
  }
}

// One online-softmax step of rows r0 .. r0 + 3 over the chunk's n scores p[r][0, n) (in
// units of the scaled score): the running max and sum move on, p becomes the unnormalised
// probabilities (zero past n; rounded to bf16 when `round_p`, as matrix units take P), and
// `correction` is what each row's output so far must be multiplied by. Always inlined, so
// that its exponentials take the caller's ISA (an -O2 build kept a generic copy out of line).
[[gnu::always_inline]] inline void softmax_step(float (&p)[4][kChunk], int n, int r0, bool round_p, Partial& part, float (&correction)[4]) {
  for (int r = 0; r < 4; ++r) {
    const int row = r0 + r;
    float top = part.m[row];
    for (int x = 0; x < n; ++x) top = std::max(top, p[r][x]);
    correction[r] = fast_exp(part.m[row] - top);
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int x = 0; x < kChunk; ++x) {
      float e = x < n ? fast_exp(p[r][x] - top) : 0.0f;
      if (round_p) e = bf16_to_float(float_to_bf16(e));
      p[r][x] = e;
      sum += e;
    }
    part.l[row] = part.l[row] * correction[r] + sum;
    part.m[row] = top;
  }
}

// Keys [j0, j1) of one (batch, KV head) on AVX512_BF16: scores and P V as bf16 dot
// products into fp32, from the cache in place. `q` holds `rows` (a multiple of 4) query
// rows of D bf16 elements, unscaled; `scale` turns a dot product into the score. Only
// call where cpu_has_bf16_dot() (attention_cpu_decode.hpp).
template <int D>
void stream_keys_bf16_dot(const AttentionData& data, std::int64_t b, std::int64_t kvh, std::int64_t j0, std::int64_t j1,
                          int rows, const std::uint16_t* q, float scale, Partial& part);

}  // namespace rooftop::attention::decode_stream
