// bf16 decode on AVX512_BF16's dot products (vdpbf16ps: 32 bf16 pairs into 16 fp32 sums in one
// instruction). The generic stream widens every bf16 key and value to fp32 first and then
// runs twice the FMAs a byte of fp32 does, bound by instructions: 15 GB/s of an in-cache bf16
// cache on one Zen 5 core, where this stream takes 23-24. A key here costs about half the
// vector instructions: no widening, and each instruction takes two elements of every lane.
#include <immintrin.h>

#if !defined(__GNUC__) || defined(__clang__)
#error "built with GCC: #pragma GCC target gives the bf16 stream its ISA"
#endif

#include <bit>
#include <cstring>

#include "devices/cpu/isa_level.hpp"
#include "suites/attention/attention_cpu_decode.hpp"
#include "suites/attention/attention_cpu_decode_stream.hpp"

namespace rooftop::attention {

// With every AVX-512 subset the pragma below lets the compiler use (a hypervisor can hide
// any one of them; the level needs them all), and not where the ISA is capped below it.
bool cpu_has_bf16_dot() { return cpu::isa_usable(cpu::IsaLevel::avx512_bf16); }

namespace decode_stream {

// Only what follows is built for AVX-512 with bf16: the headers' inline functions above
// stay generic, so that no copy of one that the linker might pick for other files needs it.
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512bf16")

namespace {

// P V takes two keys a step: their value rows interleaved element by element (unpacklo/hi
// of 16-bit words, which work within each 128-bit lane) against the pair (p_x, p_x+1). So
// the 32 outputs of a 32-element step come out as two registers, `lo` holding elements
// 8L + i and `hi` 8L + 4 + i of lane group L = 0..3, i = 0..3. The accumulators keep that
// order for the whole stream (the softmax rescale is element-wise); this puts it back.
template <int D>
void unpermute_rows(float* acc, int rows) {
  float natural[32];
  for (int r = 0; r < rows; ++r)
    for (int s = 0; s < D / 32; ++s) {
      float* step = acc + r * D + 32 * s;
      for (int pos = 0; pos < 32; ++pos) {
        const int half = pos / 16, lane = pos % 16;
        natural[8 * (lane / 4) + 4 * half + lane % 4] = step[pos];
      }
      std::memcpy(step, natural, sizeof natural);
    }
}

inline __m512bh load_bh(const std::uint16_t* p) { return (__m512bh)_mm512_loadu_si512(p); }

// The bf16 pair (p_x, p_x1) in every 32-bit lane: p is already rounded to bf16, so its
// upper 16 bits are the bf16 exactly.
inline __m512bh probability_pair(float p_x, float p_x1) {
  const std::uint32_t bits = (std::bit_cast<std::uint32_t>(p_x) >> 16) | (std::bit_cast<std::uint32_t>(p_x1) & 0xffff0000u);
  return (__m512bh)_mm512_set1_epi32(static_cast<int>(bits));
}

}  // namespace

template <int D>
void stream_keys_bf16_dot(const AttentionData& data, std::int64_t b, std::int64_t kvh, std::int64_t j0,
                                           std::int64_t j1, int rows, const std::uint16_t* q, float scale, Partial& part) {
  constexpr int kSteps = D / 32, kHalf = kSteps < 2 ? kSteps : 2;  // 32 elements a register; P V 64 at a time
  const auto* k = static_cast<const std::uint16_t*>(data.k_pool());
  const auto* v = static_cast<const std::uint16_t*>(data.v_pool());
  const std::int64_t block = data.shape().block;
  alignas(64) float p[4][kChunk];
  float correction[4];
  for (std::int64_t c = j0; c < j1;) {
    const int n = static_cast<int>(std::min<std::int64_t>({kChunk, j1 - c, block ? block - c % block : kChunk}));
    const std::uint16_t* kc = k + data.kv_offset(b, kvh, c);
    const std::uint16_t* vc = v + data.kv_offset(b, kvh, c);
    prefetch_ahead(data, k, v, b, kvh, c, j1, D * 2, 2);
    for (int r0 = 0; r0 < rows; r0 += 4) {
      const std::uint16_t* q4 = q + r0 * D;
      if (n == kChunk) {
        for (int x0 = 0; x0 < kChunk; x0 += 4) {  // 4 rows x 4 keys, then all 16 sums at once
          v16 dot[16] = {};
          for (int u = 0; u < kSteps; ++u) {
            __m512bh kv[4], qv[4];
            for (int x = 0; x < 4; ++x) kv[x] = load_bh(kc + (x0 + x) * D + 32 * u);
            for (int r = 0; r < 4; ++r) qv[r] = load_bh(q4 + r * D + 32 * u);
            for (int r = 0; r < 4; ++r)
              for (int x = 0; x < 4; ++x) dot[4 * r + x] = _mm512_dpbf16_ps(dot[4 * r + x], qv[r], kv[x]);
          }
          const v16 sums = sum_each(dot) * scale;
          for (int r = 0; r < 4; ++r)
            for (int x = 0; x < 4; ++x) p[r][x0 + x] = sums[4 * r + x];
        }
      } else {  // a last, short chunk
        for (int r = 0; r < 4; ++r)
          for (int x = 0; x < n; ++x) {
            v16 dot = {};
            for (int u = 0; u < kSteps; ++u) dot = _mm512_dpbf16_ps(dot, load_bh(q4 + r * D + 32 * u), load_bh(kc + x * D + 32 * u));
            float sum = 0;  // (GCC 12's _mm512_reduce_add_ps warns of an uninitialized temporary)
            for (int i = 0; i < 16; ++i) sum += dot[i];
            p[r][x] = sum * scale;
          }
      }
      softmax_step(p, n, r0, true, part, correction);
      for (int h = 0; h < kSteps; h += kHalf) {  // 4 rows x 2 kHalf accumulators
        __m512 out[4][2 * kHalf];
        for (int r = 0; r < 4; ++r)
          for (int i = 0; i < 2 * kHalf; ++i)
            out[r][i] = _mm512_mul_ps(_mm512_loadu_ps(part.acc + (r0 + r) * D + 32 * h + 16 * i), _mm512_set1_ps(correction[r]));
        for (int x = 0; x < n; x += 2) {
          const bool pair = x + 1 < n;  // a last odd key pairs with zeros: no row past the chunk is read
          __m512bh pb[4];
          for (int r = 0; r < 4; ++r) pb[r] = probability_pair(p[r][x], pair ? p[r][x + 1] : 0.0f);
          for (int s = 0; s < kHalf; ++s) {
            const __m512i a = _mm512_loadu_si512(vc + x * D + 32 * (h + s));
            const __m512i a1 = pair ? _mm512_loadu_si512(vc + (x + 1) * D + 32 * (h + s)) : _mm512_setzero_si512();
            const __m512bh lo = (__m512bh)_mm512_unpacklo_epi16(a, a1), hi = (__m512bh)_mm512_unpackhi_epi16(a, a1);
            for (int r = 0; r < 4; ++r) {
              out[r][2 * s] = _mm512_dpbf16_ps(out[r][2 * s], pb[r], lo);
              out[r][2 * s + 1] = _mm512_dpbf16_ps(out[r][2 * s + 1], pb[r], hi);
            }
          }
        }
        for (int r = 0; r < 4; ++r)
          for (int i = 0; i < 2 * kHalf; ++i) _mm512_storeu_ps(part.acc + (r0 + r) * D + 32 * h + 16 * i, out[r][i]);
      }
    }
    c += n;
  }
  unpermute_rows<D>(part.acc, rows);
}

template void stream_keys_bf16_dot<64>(const AttentionData&, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int,
                                       const std::uint16_t*, float, Partial&);
template void stream_keys_bf16_dot<128>(const AttentionData&, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int,
                                        const std::uint16_t*, float, Partial&);

#pragma GCC pop_options

}  // namespace decode_stream
}  // namespace rooftop::attention
