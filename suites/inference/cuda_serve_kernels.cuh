#pragma once
// The serve scenario's GPU kernels for a ragged batch over a paged cache: every row (a new
// token) at its own position in its own sequence's blocks. The rest of a serve step (the
// embedding, norms, SwiGLU, argmax; cuBLASLt's matmuls) are the decoder's
// (cuda_decoder_kernels.cuh). Queued on gpu::stream().
#include <cstdint>

namespace rooftop::inference::kernels {

// Where each row of a ragged step lives, on the device: row r is at position pos[r]; its
// sequence's block table starts at tables + table_at[r]; one layer's cache is [block][kv
// head][page][d], bf16.
struct RaggedRows {
  const std::int32_t* pos = nullptr;
  const std::int32_t* table_at = nullptr;
  const std::int32_t* tables = nullptr;
  std::int64_t page = 16;
};

// RoPE on q and k of every row (plus `bias` [q; k; v] when not null, before the rotation),
// then k and v into the layer's cache at the row's position, and q as bf16 into `q16`
// [rows][heads][d] (the split decode kernel's input). `table`: rope_table's.
void ragged_rope_and_cache(float* qkv, void* k_cache, void* v_cache, void* q16, const float* table, std::int64_t rows,
                           const RaggedRows& where, std::int64_t heads, std::int64_t kv_heads, std::int64_t d,
                           const float* bias);
// Causal GQA attention of each row over its sequence's cache up to its position (a sliding
// `window` > 0 bounds it), online softmax in fp32, out bf16 [rows][heads][d]. Groups of 1 to
// 16 query heads a KV head, head dims multiples of 8 up to 256 (std::invalid_argument else).
void ragged_attention(const float* qkv, const void* k_cache, const void* v_cache, void* out, std::int64_t rows,
                      const RaggedRows& where, std::int64_t heads, std::int64_t kv_heads, std::int64_t d, std::int64_t window);
// out[i] = h[which[i]] for `count` rows of `hidden` (the sampled rows before the final norm).
void gather_rows(const float* h, const std::int32_t* which, float* out, std::int64_t count, std::int64_t hidden);

}  // namespace rooftop::inference::kernels
