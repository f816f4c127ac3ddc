#pragma once
// The decoder's forward on the CPU: oneDNN matmuls for every projection and the LM head
// (weights in their [out, in] layout, read as the transposed B of y = x W^T), and our own
// vectorised kernels for the rest: embedding gather, RMSNorm, RoPE with the KV-cache
// write, causal GQA attention over the cache (online softmax), SwiGLU, residual adds,
// argmax. Activations are fp32 between kernels; matmul inputs and the cache are in the
// run's dtype, accumulation in fp32. The cache is blocks of positions: a uniform batch's
// sequence has one block of max_context positions (the contiguous cache), the serve
// scenario's sequences share a pool of small pages through block tables (PagedDecoder).
// Tensor parallel (a TensorParallelGroup of tp > 1 ranks, one process each): the decoder
// keeps its rank's shard (tensor_parallel.hpp), all-reduces the o_proj and down outputs
// (fp32, one call each a layer), reduces the LM head's argmax over the vocabulary slices
// and gathers the logits only where they are read (logits()).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "suites/inference/decoder.hpp"
#include "suites/inference/paged_decoder.hpp"
#include "suites/inference/tensor_parallel_group.hpp"

namespace rooftop::inference {

class CpuDecoder final : public Decoder, public PagedDecoder {
 public:
  struct PagedCache {
    std::int64_t blocks = 0;  // cache blocks in the pool
    std::int64_t page = 16;   // positions a block
  };
  // Batch `batch` sequences, each up to `max_context` positions, through the first `layers`
  // layers (all: -1; a slice for checks); throws PointSkipped when oneDNN has no matmul for
  // the dtype here. `group` (tp > 1): this rank's part of the model, `weights` being the
  // whole model's (the rank slices its shard from them).
  CpuDecoder(const DecoderWeights& weights, std::int64_t batch, std::int64_t max_context, std::int64_t layers = -1,
             std::shared_ptr<TensorParallelGroup> group = nullptr);
  // The serve scenario's decoder: a pool of `cache.blocks` blocks of `cache.page` positions,
  // sequences up to `max_context` positions, driven through forward_chunks.
  CpuDecoder(const DecoderWeights& weights, PagedCache cache, std::int64_t max_context, std::int64_t layers = -1);
  ~CpuDecoder() override;

  void forward_chunks(std::span<const std::int32_t> tokens, std::span<const SequenceChunk> chunks,
                      std::span<std::int32_t> next) override;
  void prepare_steps(std::int64_t token_budget, std::int64_t max_sequences) override;
  std::int64_t cache_blocks() const override { return blocks_; }
  std::int64_t page() const override { return page_; }

  void forward(std::span<const std::int32_t> tokens, std::int64_t tokens_per_seq, std::span<std::int32_t> next) override;

  // The matmuls of a forward over `rows` tokens (and, for a decode step's few rows, the
  // choice between oneDNN and our GEMV), so that neither happens in a timed run.
  void prepare_rows(std::int64_t rows) override;

  std::int64_t length() const override { return length_; }
  void set_length(std::int64_t length) override;
  void fill_cache_randomly(std::int64_t length, std::uint64_t seed) override;
  const std::vector<float>& logits() override;
  void poison_logits() override {
    std::fill(logits_.begin(), logits_.end(), std::numeric_limits<float>::quiet_NaN());
    gathered_ = false;
  }
  std::string implementation() const override;
  std::string implementation_label() const override;
  void set_recorder(StageRecorder* recorder) override { recorder_ = recorder; }

 private:
  struct Linear;
  Linear& linear(const void* weight, std::int64_t m, std::int64_t n, std::int64_t k);
  void execute(Linear& linear, const void* x, float* y);
  void attention(std::int64_t layer, std::span<const SequenceChunk> chunks, const float* qkv, void* out);
  // The forward of both interfaces: every chunk's rows through the layers, the sampled
  // chunks' last rows through the head.
  void run_chunks(std::span<const std::int32_t> tokens, std::span<const SequenceChunk> chunks, std::span<std::int32_t> next);
  // Element offset of (layer, block, kv head, position within the block) in the cache.
  void fill_rope_table();
  // The rows a matmul runs for `rows` rows: the same for the uniform batch; a paged step's
  // rounded up to a bucket (exact to kGemvRows, then a multiple of 16) so that the row
  // counts a serve run meets are few and all prepared before it is timed.
  std::int64_t matmul_rows(std::int64_t rows) const;
  std::size_t cache_at(std::int64_t layer, std::int64_t block, std::int64_t kv_head, std::int64_t slot) const;

  // Tensor parallel: the group (null: one rank), the rank's slice and its shard of the weights.
  std::shared_ptr<TensorParallelGroup> group_;
  TensorParallelSlice slice_;
  std::unique_ptr<const DecoderWeights> shard_;
  std::int64_t model_kv_heads_, model_vocab_;  // the whole model's
  const DecoderWeights& w_;  // the shard where tensor parallel, else the weights given
  StageRecorder* recorder_ = nullptr;
  std::int64_t batch_, max_context_, layers_, length_ = 0;
  std::int64_t blocks_, page_;  // the cache: blocks of page positions (contiguous: batch of max_context)
  struct Engine;
  std::unique_ptr<Engine> engine_;
  std::map<std::pair<const void*, std::int64_t>, std::unique_ptr<Linear>> linears_;  // (weight, M)
  std::vector<std::uint8_t> k_cache_, v_cache_;  // [layer][block][kv head][position in block][head dim], dtype
  std::vector<float> h_, qkv_, proj_, gate_up_, logits_;
  std::vector<float> rope_;  // [position][cos of d/2 pairs, then sin]: every position up to max_context
  std::vector<std::int32_t> own_blocks_;  // the uniform batch's: sequence b's block is b
  std::vector<SequenceChunk> chunks_;     // the uniform batch's chunks, a forward
  std::vector<std::int64_t> row_pos_, row_chunk_, sample_rows_;  // a forward's rows: position, chunk; sampled rows
  std::vector<double> rope_frequencies_;  // the config's, scaling applied
  std::vector<std::uint8_t> xn_, attn_, act_;  // matmul inputs, dtype
  // Tensor parallel: the last forward's sampled rows, their local argmax, and the whole
  // vocabulary's logits once gathered (logits()).
  std::int64_t sampled_ = 0;
  std::vector<float> best_value_, padded_, all_logits_;
  std::vector<std::int32_t> best_index_;
  bool gathered_ = false;
};

}  // namespace rooftop::inference
