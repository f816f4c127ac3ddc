#pragma once
// The GPU decoder's own kernels (everything but the matmuls, which are cuBLASLt's), each
// queued on gpu::stream(). Activations between kernels are fp32; matmul inputs and the
// KV cache bf16. `fp8_inverse`, where a kernel takes one: 0 stores its activation in bf16,
// else in e4m3 for an fp8 projection whose input scale it is the reciprocal of
// (cuda_activation.cuh).
#include <cstdint>
#include <vector>

namespace rooftop::inference::kernels {

// Where the decoder's cache keeps sequence b's position p for KV head g (one layer's keys
// or values): contiguous, [batch][kv head][capacity][d]; or paged, [blocks][kv head][page]
// [d] with sequence b's page i at block block_table[b * (capacity / page) + i], as a
// serving engine allocates its cache.
struct CacheLayout {
  std::int64_t capacity = 0;  // positions a sequence's cache holds (a multiple of page)
  std::int64_t page = 0;      // 0: contiguous
  const std::int32_t* block_table = nullptr;  // on the device
};

// h[r] = embedding[tokens[r]] (bf16 -> fp32).
void embed(const std::int32_t* tokens, const void* embedding, float* h, std::int64_t rows, std::int64_t hidden);
// out[r] = h[first + r * stride] * rsqrt(mean(h^2) + eps) * weight, one block a row.
void rms_norm(const float* h, const float* weight, void* out, std::int64_t rows, std::int64_t stride, std::int64_t first,
              std::int64_t hidden, float eps, float fp8_inverse = 0);
// cos and sin of every position's rotary angles, [positions][d/2][2], computed in double
// once (a decode step's RoPE then reads 2 floats a pair instead of computing them), from
// the d/2 inverse frequencies (ModelConfig::rope_inverse_frequencies), cos and sin times
// `amplitude` (ModelConfig::rope_amplitude: yarn's attention factor).
std::vector<float> rope_table(std::int64_t positions, const std::vector<double>& frequencies, double amplitude = 1);
// Rotary embedding on q and k of every row (rotate-half pairs i, i + d/2, the angles from
// rope_table on the device), then k and v into the cache (`cache`'s layout) at
// position *start + t; the rotated q also to q_bf16 [batch][heads][tokens][d] when not null
// (the fused attention kernels' input). `start` is on the device, so a captured graph
// replays at a growing position.
// `kv_rows`, when not null: k and v also to [batch][kv head][tokens][d] (a paged cache's
// prefill hands the fused kernel contiguous rows), kv_rows[0] the keys, kv_rows[1] the values.
// `bias`, when not null: the [q; k; v] bias, added before the rotation.
void rope_and_cache(float* qkv, void* k_cache, void* v_cache, void* q_bf16, const float* table, std::int64_t batch,
                    std::int64_t tokens, const std::int32_t* start, std::int64_t heads, std::int64_t kv_heads,
                    std::int64_t d, const CacheLayout& cache, void* const* kv_rows = nullptr, const float* bias = nullptr);
// Causal GQA attention of each new token over the cache (online softmax, fp32), out bf16:
// the plain path, for head dims and groups the fused kernels lack and for sliding windows
// (`window` > 0: a position attends itself and the window - 1 before it).
void attention(const float* qkv, const void* k_cache, const void* v_cache, void* out, std::int64_t batch,
               std::int64_t tokens, const std::int32_t* start, std::int64_t heads, std::int64_t kv_heads, std::int64_t d,
               const CacheLayout& cache, std::int64_t window = 0);
// act = silu(gate) * up, gate_up [rows][2 * inter] (plus `bias` [2 * inter] when not null).
void swiglu(const float* gate_up, void* act, std::int64_t rows, std::int64_t inter, float fp8_inverse = 0,
            const float* bias = nullptr);
// y[r][i] += bias[i] for `rows` rows of n.
void add_bias(float* y, const float* bias, std::int64_t rows, std::int64_t n);
// out = e4m3(x / scale) for n bf16 elements: the attention output an fp8 projection reads.
void quantize_e4m3(const void* x, void* out, std::int64_t n, float fp8_inverse);
// next[b] = argmax of logits[b] (the lowest index among equals), many blocks a row. The
// workspace, argmax_workspace_bytes(rows), is zeroed once; each launch leaves it zeroed.
void argmax(const float* logits, std::int32_t* next, std::int64_t rows, std::int64_t vocab, void* workspace);
std::int64_t argmax_workspace_bytes(std::int64_t rows);
// Tensor parallel over the vocabulary: keys[r] = the ordered key (value, then the lowest
// index) of row r's local best, next[r], at its global index offset + next[r]; 8 bytes a row.
void tp_best_keys(const float* logits, const std::int32_t* next, std::int64_t rows, std::int64_t vocab, std::int64_t offset,
                  void* keys);
// next[r] = the best of the ranks' keys for row r (`gathered`: [tp][rows], all-gathered).
void tp_pick_best(const void* gathered, int tp, std::int64_t rows, std::int32_t* next);
// Fills bf16 buffers with seeded values in [lo, hi).
void fill_bf16(void* data, std::int64_t n, std::uint64_t seed, float lo, float hi);
// NaN everywhere: fp32.
void poison_f32(float* data, std::int64_t n);

}  // namespace rooftop::inference::kernels
