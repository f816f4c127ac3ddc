#include "suites/attention/attention_cpu_decode.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "harness/aligned_vector.hpp"
#include "harness/bf16.hpp"
#include "suites/attention/attention_cpu_decode_stream.hpp"
#include "suites/attention/attention_cpu_exp.hpp"

namespace rooftop::attention {
namespace {

using namespace decode_stream;

constexpr std::int64_t kMinSplit = 512;  // keys a split streams at least: its merge must stay small

inline float widen(float x) { return x; }
inline float widen(std::uint16_t x) { return std::bit_cast<float>(static_cast<std::uint32_t>(x) << 16); }  // bf16

typedef std::uint16_t u16x16 __attribute__((vector_size(32)));
typedef std::uint32_t u32x16 __attribute__((vector_size(64)));
// Always inlined (see attention_cpu_decode_stream.hpp): vectors by value cross no ISA boundary.
[[gnu::always_inline]] inline v16 load16(const float* p) {
  v16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
[[gnu::always_inline]] inline v16 load16(const std::uint16_t* p) {  // bf16: the upper half of an fp32
  u16x16 h;
  std::memcpy(&h, p, sizeof h);
  const u32x16 w = __builtin_convertvector(h, u32x16) << 16;
  return std::bit_cast<v16>(w);
}
[[gnu::always_inline]] inline float sum16(v16 v) {
  float s = 0;
  for (int i = 0; i < 16; ++i) s += v[i];
  return s;
}

// Streams keys [j0, j1) of one (batch, KV head): for every chunk of 16 keys, rows four at
// a time: their scores, their online-softmax step, then P V, all from the cache in place.
// Each load of a key or value feeds four rows (4 x 4 accumulators), so that a chunk costs
// about as many loads as FMAs / 2 and the thread keeps up with memory; the chunk's lines
// come from memory for the first four rows and from L1 for the rest.
template <int D, typename T>
__attribute__((target_clones("avx512f", "avx2", "default")))
void stream_keys(const AttentionData& data, std::int64_t b, std::int64_t kvh, std::int64_t j0, std::int64_t j1, int rows,
                 const float* q, bool round_p, Partial& part) {
  constexpr int kV = D / 16, kHalf = kV < 4 ? kV : 4;
  const auto* k = static_cast<const T*>(data.k_pool());
  const auto* v = static_cast<const T*>(data.v_pool());
  const std::int64_t block = data.shape().block;
  alignas(64) float p[4][kChunk];
  float correction[4];
  for (std::int64_t c = j0; c < j1;) {
    // A chunk never crosses a page of a paged cache: its rows are contiguous.
    const int n = static_cast<int>(std::min<std::int64_t>({kChunk, j1 - c, block ? block - c % block : kChunk}));
    const T* kc = k + data.kv_offset(b, kvh, c);
    const T* vc = v + data.kv_offset(b, kvh, c);
    prefetch_ahead(data, k, v, b, kvh, c, j1, D * static_cast<int>(sizeof(T)), static_cast<int>(sizeof(T)));
    for (int r0 = 0; r0 < rows; r0 += 4) {  // q holds rows padded to a multiple of 4 with zeros
      const float* q4 = q + r0 * D;
      if (n == kChunk) {
        for (int x0 = 0; x0 < kChunk; x0 += 4) {  // 4 rows x 4 keys, then all 16 sums at once
          v16 dot[16] = {};
          for (int u = 0; u < kV; ++u) {
            v16 kv[4], qv[4];
            for (int x = 0; x < 4; ++x) kv[x] = load16(kc + (x0 + x) * D + 16 * u);
            for (int r = 0; r < 4; ++r) qv[r] = load16(q4 + r * D + 16 * u);
            for (int r = 0; r < 4; ++r)
              for (int x = 0; x < 4; ++x) dot[4 * r + x] += qv[r] * kv[x];
          }
          const v16 sums = sum_each(dot);
          for (int r = 0; r < 4; ++r)
            for (int x = 0; x < 4; ++x) p[r][x0 + x] = sums[4 * r + x];
        }
      } else {  // a last, short chunk
        for (int r = 0; r < 4; ++r)
          for (int x = 0; x < n; ++x) {
            v16 dot = {};
            for (int u = 0; u < kV; ++u) dot += load16(q4 + r * D + 16 * u) * load16(kc + x * D + 16 * u);
            p[r][x] = sum16(dot);
          }
      }
      softmax_step(p, n, r0, round_p, part, correction);
      for (int h = 0; h < kV; h += kHalf) {  // P V over a quarter or half of D at a time: 16 accumulators
        v16 out[4][kHalf];
        for (int r = 0; r < 4; ++r)
          for (int u = 0; u < kHalf; ++u) out[r][u] = load16(part.acc + (r0 + r) * D + 16 * (h + u)) * correction[r];
        for (int x = 0; x < n; ++x) {
          v16 vv[kHalf];
          for (int u = 0; u < kHalf; ++u) vv[u] = load16(vc + x * D + 16 * (h + u));
          for (int r = 0; r < 4; ++r) {
            const v16 pb = v16{} + p[r][x];
            for (int u = 0; u < kHalf; ++u) out[r][u] += pb * vv[u];
          }
        }
        for (int r = 0; r < 4; ++r)
          for (int u = 0; u < kHalf; ++u) std::memcpy(part.acc + (r0 + r) * D + 16 * (h + u), &out[r][u], sizeof(v16));
      }
    }
    c += n;
  }
}

template <int D, typename T>
void decode(AttentionData& data, bool bf16_dot) {
  const auto& s = data.shape();
  const int g = static_cast<int>(s.group()), rows = g * static_cast<int>(s.sq), padded = (rows + 3) / 4 * 4;
  const std::int64_t pairs = s.b * s.hkv;
  // Enough work items for every thread (four each, for the dynamic schedule to even out),
  // but no split shorter than kMinSplit keys.
  const int threads = omp_get_max_threads();
  const std::int64_t splits =
      std::clamp<std::int64_t>((4 * threads + pairs - 1) / pairs, 1, std::max<std::int64_t>(1, s.skv / kMinSplit));
  // Splits start on a chunk (and so page) boundary, so that their chunks are whole.
  const std::int64_t span = ((s.skv + splits - 1) / splits + kChunk - 1) / kChunk * kChunk;
  std::vector<float> m(static_cast<std::size_t>(pairs * splits * rows)), l(m.size());
  std::vector<float> acc(static_cast<std::size_t>(pairs * splits * padded * D));
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const bool round_p = data.dtype() != Dtype::fp32;
#pragma omp parallel
  {
    AlignedVector<float> q(static_cast<std::size_t>(padded * D));  // rows past `rows` stay zero
    AlignedVector<std::uint16_t> q16(bf16_dot ? q.size() : 0);     // the same, bf16 and unscaled
    Partial part{};
#pragma omp for schedule(dynamic)
    for (std::int64_t item = 0; item < pairs * splits; ++item) {
      const std::int64_t pair = item / splits, split = item % splits, b = pair / s.hkv, kvh = pair % s.hkv;
      for (int r = 0; r < rows; ++r) {  // rows: the group's heads x the query positions
        const std::int64_t h = kvh * g + r / s.sq, i = r % s.sq;
        const auto* src = static_cast<const T*>(data.q()) + ((b * s.hq + h) * s.sq + i) * D;
        for (int t = 0; t < D; ++t) q[static_cast<std::size_t>(r * D + t)] = widen(src[t]) * scale;
        if constexpr (sizeof(T) == 2)
          if (bf16_dot) std::copy(src, src + D, &q16[static_cast<std::size_t>(r * D)]);
      }
      part.acc = &acc[static_cast<std::size_t>(item * padded * D)];
      std::fill(part.acc, part.acc + padded * D, 0.0f);
      std::fill(part.m, part.m + padded, -std::numeric_limits<float>::infinity());
      std::fill(part.l, part.l + padded, 0.0f);
      const std::int64_t j0 = split * span, j1 = std::min(s.skv, j0 + span);
      if (j0 >= j1) {
      } else if (bf16_dot) {
        stream_keys_bf16_dot<D>(data, b, kvh, j0, j1, padded, q16.data(), scale, part);
      } else {
        stream_keys<D, T>(data, b, kvh, j0, j1, padded, q.data(), round_p, part);
      }
      std::copy(part.m, part.m + rows, &m[static_cast<std::size_t>(item * rows)]);
      std::copy(part.l, part.l + rows, &l[static_cast<std::size_t>(item * rows)]);
    }
    // Merge the splits of each row: rescale each to the largest max, then sum.
#pragma omp for
    for (std::int64_t pr = 0; pr < pairs * rows; ++pr) {
      const std::int64_t pair = pr / rows, r = pr % rows, b = pair / s.hkv, kvh = pair % s.hkv;
      float top = -std::numeric_limits<float>::infinity();
      for (std::int64_t sp = 0; sp < splits; ++sp) top = std::max(top, m[static_cast<std::size_t>((pair * splits + sp) * rows + r)]);
      float out[D] = {}, total = 0;
      for (std::int64_t sp = 0; sp < splits; ++sp) {
        const auto at = static_cast<std::size_t>((pair * splits + sp) * rows + r);
        if (l[at] == 0) continue;
        const float w = fast_exp(m[at] - top);
        total += l[at] * w;
        const float* a = &acc[static_cast<std::size_t>(((pair * splits + sp) * padded + r) * D)];
        for (int t = 0; t < D; ++t) out[t] += a[t] * w;
      }
      const float inv = total > 0 ? 1.0f / total : 0.0f;
      const std::int64_t h = kvh * g + r / s.sq, i = r % s.sq, dst = ((b * s.hq + h) * s.sq + i) * D;
      for (int t = 0; t < D; ++t) {
        if constexpr (sizeof(T) == 4) static_cast<float*>(data.o())[dst + t] = out[t] * inv;
        else static_cast<std::uint16_t*>(data.o())[dst + t] = float_to_bf16(out[t] * inv);
      }
    }
  }
}

}  // namespace

bool decode_kernel_applies(const AttentionData& data) {
  const auto& s = data.shape();
  return s.decode && !s.causal && (data.dtype() == Dtype::fp32 || data.dtype() == Dtype::bf16) && (s.d == 64 || s.d == 128) &&
         s.group() * s.sq <= kMaxRows;
}

CpuDecodePath cpu_decode_path(Dtype dtype) {
  return dtype == Dtype::bf16 && cpu_has_bf16_dot() ? CpuDecodePath::bf16_dot : CpuDecodePath::fp32_fma;
}

void decode_attention_cpu(AttentionData& data, CpuDecodePath path) {
  const bool bf16 = data.dtype() == Dtype::bf16, dot = bf16 && path == CpuDecodePath::bf16_dot;
  if (dot && !cpu_has_bf16_dot()) throw std::logic_error("decode_attention_cpu: this CPU has no AVX512_BF16");
  if (data.shape().d == 64) bf16 ? decode<64, std::uint16_t>(data, dot) : decode<64, float>(data, false);
  else bf16 ? decode<128, std::uint16_t>(data, dot) : decode<128, float>(data, false);
}

}  // namespace rooftop::attention
