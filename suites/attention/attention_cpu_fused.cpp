#include "suites/attention/attention_cpu_fused.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "harness/bf16.hpp"
#include "harness/fp16.hpp"
#include "suites/attention/attention_cpu_exp.hpp"

namespace rooftop::attention {
namespace {

constexpr int kRowBlock = 16;  // query positions per tile (x the group's heads)
constexpr int kKeyBlock = 64;  // keys per tile
constexpr int kMaxD = 128;
constexpr int kFewRows = 8;  // below this many rows a tile skips transposing K

inline float to_float(Dtype d, const void* base, std::int64_t i) {
  switch (d) {
    case Dtype::fp32: return static_cast<const float*>(base)[i];
    case Dtype::bf16: return bf16_to_float(static_cast<const std::uint16_t*>(base)[i]);
    default: return half_to_float(static_cast<const std::uint16_t*>(base)[i]);
  }
}

inline float round_to(Dtype d, float x) {
  switch (d) {
    case Dtype::fp32: return x;
    case Dtype::bf16: return bf16_to_float(float_to_bf16(x));
    default: return half_to_float(float_to_half(x));
  }
}

void load_rows(Dtype d, const void* base, std::int64_t offset, std::int64_t count, float* out) {
  if (d == Dtype::fp32) {
    std::memcpy(out, static_cast<const float*>(base) + offset, static_cast<std::size_t>(count) * 4);
  } else if (d == Dtype::bf16) {
    const auto* p = static_cast<const std::uint16_t*>(base) + offset;
#pragma omp simd
    for (std::int64_t i = 0; i < count; ++i) out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(p[i]) << 16);
  } else {
    for (std::int64_t i = 0; i < count; ++i) out[i] = to_float(d, base, offset + i);
  }
}

// Few rows (decode: one query per head of the group): K as it is stored, one dot product per
// key, since transposing a key block would cost as much as using it.
template <int D>
__attribute__((target_clones("avx512f", "avx2", "default")))
void tile_rows_few(int rows, int n, const float* q, const float* k, const float* v, Dtype dtype, float* m, float* l,
                   float* acc) {
  for (int r = 0; r < rows; ++r) {
    const float* qr = q + r * D;
    float s[kKeyBlock];
    float row_max = m[r];
    for (int j = 0; j < n; ++j) {
      float dot = 0;
#pragma omp simd reduction(+ : dot)
      for (int t = 0; t < D; ++t) dot += qr[t] * k[j * D + t];
      s[j] = dot;
      row_max = std::max(row_max, dot);
    }
    const float correction = fast_exp(m[r] - row_max);
    float sum = 0;
    for (int j = 0; j < n; ++j) {
      s[j] = fast_exp(s[j] - row_max);
      if (dtype != Dtype::fp32) s[j] = round_to(dtype, s[j]);
      sum += s[j];
    }
    l[r] = l[r] * correction + sum;
    m[r] = row_max;
    float* ar = acc + r * D;
#pragma omp simd
    for (int t = 0; t < D; ++t) ar[t] *= correction;
    for (int j = 0; j < n; ++j) {
      const float p = s[j];
#pragma omp simd
      for (int t = 0; t < D; ++t) ar[t] += p * v[j * D + t];
    }
  }
}

// 16 floats: one AVX-512 register (two AVX2 ones on the AVX2 clone).
typedef float v16 __attribute__((vector_size(64)));
[[gnu::always_inline]] inline v16 load16(const float* p) {  // no copy out of line: see attention_cpu_decode_stream.hpp
  v16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
[[gnu::always_inline]] inline void store16(float* p, v16 v) { std::memcpy(p, &v, sizeof v); }

// One tile: rows (a multiple of 4, padded) x D queries, pre-scaled, against up to
// kKeyBlock keys. K is transposed to [D][kKeyBlock]. Register-blocked micro-kernels:
// scores for 4 rows x 64 keys in 16 vector accumulators (4 key loads and 4 broadcasts feed
// 16 FMAs), then P x V for 2 rows x D outputs in 2 x D/16 accumulators.
template <int D>
__attribute__((target_clones("avx512f", "avx2", "default")))
void tile(int rows, int n, const float* q, const float* kt, const float* v, const int* visible, Dtype dtype,
          float* m, float* l, float* acc) {
  constexpr int kC = kKeyBlock / 16, kDv = D / 16;
  alignas(64) float p[4][kKeyBlock];
  float correction[4];
  for (int r0 = 0; r0 < rows; r0 += 4) {
    v16 s[4][kC] = {};
    for (int t = 0; t < D; ++t) {
      v16 k[kC];
      for (int c = 0; c < kC; ++c) k[c] = load16(kt + t * kKeyBlock + 16 * c);
      for (int i = 0; i < 4; ++i) {
        const v16 qb = v16{} + q[(r0 + i) * D + t];
        for (int c = 0; c < kC; ++c) s[i][c] += qb * k[c];
      }
    }
    for (int i = 0; i < 4; ++i) {
      const int r = r0 + i;
      for (int c = 0; c < kC; ++c) store16(&p[i][16 * c], s[i][c]);
      const float row_max = attention::row_max(p[i], visible[r], m[r]);
      if (row_max == -INFINITY) {  // nothing visible yet in this row
        correction[i] = 1.0f;
        std::fill(p[i], p[i] + kKeyBlock, 0.0f);
        continue;
      }
      correction[i] = fast_exp(m[r] - row_max);
      float sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int j = 0; j < kKeyBlock; ++j) {
        p[i][j] = j < visible[r] ? fast_exp(p[i][j] - row_max) : 0.0f;
        sum += p[i][j];
      }
      if (dtype != Dtype::fp32)
        for (int j = 0; j < n; ++j) p[i][j] = round_to(dtype, p[i][j]);  // P in the input type, as matrix units take it
      l[r] = l[r] * correction[i] + sum;
      m[r] = row_max;
    }
    for (int i0 = 0; i0 < 4; i0 += 2) {
      v16 a[2][kDv];
      for (int i = 0; i < 2; ++i)
        for (int c = 0; c < kDv; ++c) a[i][c] = load16(acc + (r0 + i0 + i) * D + 16 * c) * correction[i0 + i];
      for (int j = 0; j < n; ++j) {
        const v16 pb0 = v16{} + p[i0][j], pb1 = v16{} + p[i0 + 1][j];
        for (int c = 0; c < kDv; ++c) {
          const v16 vv = load16(v + j * D + 16 * c);
          a[0][c] += pb0 * vv;
          a[1][c] += pb1 * vv;
        }
      }
      for (int i = 0; i < 2; ++i)
        for (int c = 0; c < kDv; ++c) store16(acc + (r0 + i0 + i) * D + 16 * c, a[i][c]);
    }
  }
}

}  // namespace

void fused_attention_cpu(AttentionData& data) {
  const auto& s = data.shape();
  const Dtype dtype = data.dtype();
  const int d = static_cast<int>(s.d);
  const std::int64_t g = s.group();
  const std::int64_t row_blocks = (s.sq + kRowBlock - 1) / kRowBlock;
  const std::int64_t tasks = s.b * s.hkv * row_blocks;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
#pragma omp parallel
  {
    const int max_rows = static_cast<int>(g * kRowBlock + 3);
    std::vector<float> q(static_cast<std::size_t>(max_rows * kMaxD)), acc(q.size()), m(max_rows), l(max_rows);
    std::vector<float> k(kMaxD), kt(kKeyBlock * kMaxD), v(kKeyBlock * kMaxD);
    std::vector<int> visible(max_rows), row_pos(max_rows);
#pragma omp for schedule(dynamic)
    for (std::int64_t task = 0; task < tasks; ++task) {
      const std::int64_t b = task / (s.hkv * row_blocks), kvh = (task / row_blocks) % s.hkv, rb = task % row_blocks;
      const std::int64_t i0 = rb * kRowBlock, i1 = std::min(s.sq, i0 + kRowBlock);
      // Rows: the group's heads x this block's positions.
      int rows = 0;
      std::int64_t last_key = 0;
      for (std::int64_t h = kvh * g; h < (kvh + 1) * g; ++h)
        for (std::int64_t i = i0; i < i1; ++i, ++rows) {
          load_rows(dtype, data.q(), ((b * s.hq + h) * s.sq + i) * d, d, &q[static_cast<std::size_t>(rows * d)]);
          for (int t = 0; t < d; ++t) q[static_cast<std::size_t>(rows * d + t)] *= scale;
          row_pos[rows] = static_cast<int>(s.causal ? std::clamp<std::int64_t>(i + s.skv - s.sq + 1, 0, s.skv) : s.skv);
          last_key = std::max<std::int64_t>(last_key, row_pos[rows]);
        }
      const int padded = (rows + 3) / 4 * 4;  // the micro-kernel takes rows 4 at a time
      std::fill(q.begin() + rows * d, q.begin() + padded * d, 0.0f);
      std::fill(m.begin(), m.begin() + padded, -INFINITY);
      std::fill(l.begin(), l.begin() + padded, 0.0f);
      std::fill(acc.begin(), acc.begin() + padded * d, 0.0f);
      for (std::int64_t j0 = 0; j0 < last_key; j0 += kKeyBlock) {
        const int n = static_cast<int>(std::min<std::int64_t>(kKeyBlock, last_key - j0));
        if (!s.causal && rows < kFewRows) {
          for (int j = 0; j < n; ++j) {
            const auto off = data.kv_offset(b, kvh, j0 + j);
            load_rows(dtype, data.k_pool(), off, d, &kt[static_cast<std::size_t>(j * d)]);
            load_rows(dtype, data.v_pool(), off, d, &v[static_cast<std::size_t>(j * d)]);
          }
          if (d == 64) tile_rows_few<64>(rows, n, q.data(), kt.data(), v.data(), dtype, m.data(), l.data(), acc.data());
          else tile_rows_few<128>(rows, n, q.data(), kt.data(), v.data(), dtype, m.data(), l.data(), acc.data());
          continue;
        }
        std::fill(kt.begin(), kt.end(), 0.0f);
        for (int j = 0; j < n; ++j) {
          const auto off = data.kv_offset(b, kvh, j0 + j);
          load_rows(dtype, data.k_pool(), off, d, k.data());
          for (int t = 0; t < d; ++t) kt[static_cast<std::size_t>(t * kKeyBlock + j)] = k[static_cast<std::size_t>(t)];
          load_rows(dtype, data.v_pool(), off, d, &v[static_cast<std::size_t>(j * d)]);
        }
        for (int r = 0; r < padded; ++r) visible[r] = r < rows ? static_cast<int>(std::clamp<std::int64_t>(row_pos[r] - j0, 0, n)) : 0;
        if (d == 64) tile<64>(padded, n, q.data(), kt.data(), v.data(), visible.data(), dtype, m.data(), l.data(), acc.data());
        else tile<128>(padded, n, q.data(), kt.data(), v.data(), visible.data(), dtype, m.data(), l.data(), acc.data());
      }
      rows = 0;
      for (std::int64_t h = kvh * g; h < (kvh + 1) * g; ++h)
        for (std::int64_t i = i0; i < i1; ++i, ++rows) {
          const float inv = l[rows] > 0 ? 1.0f / l[rows] : 0.0f;
          const std::int64_t off = ((b * s.hq + h) * s.sq + i) * d;
          for (int t = 0; t < d; ++t) {
            const float o = acc[static_cast<std::size_t>(rows * d + t)] * inv;
            if (dtype == Dtype::fp32) static_cast<float*>(data.o())[off + t] = o;
            else if (dtype == Dtype::bf16) static_cast<std::uint16_t*>(data.o())[off + t] = float_to_bf16(o);
            else static_cast<std::uint16_t*>(data.o())[off + t] = float_to_half(o);
          }
        }
    }
  }
}

}  // namespace rooftop::attention
