#pragma once
// The serve scenario's decoder on a CUDA GPU, bf16: cuBLASLt for every projection and the
// LM head (the residual added by the matmul itself), the decoder's kernels for the
// embedding, norms, SwiGLU and argmax (cuda_decoder_kernels.cuh), ragged kernels for RoPE
// with the cache write and for the prefill rows' attention over their own blocks
// (cuda_serve_kernels.cuh), and the decode rows' attention on the split-KV kernel the decode
// scenario runs (attention_cuda_decode.cuh), each row over its own length of its paged cache.
// A step's matmul rows are padded to a bucket (exact to 8, then a multiple of 16), every
// bucket's matmul made before the timing. A decode-only step (every row one sampled token)
// replays a CUDA graph captured for its batch bucket and its longest sequence's bucket of
// keys, all captured before the timing; its padding rows write and read a scratch cache
// block. A step with prompt tokens launches eagerly (docs/inference.md).
#include <map>
#include <span>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/vendor_matmul.hpp"
#include "suites/inference/paged_decoder.hpp"

namespace rooftop::inference {

class CudaServeDecoder final : public PagedDecoder {
 public:
  // Throws PointSkipped for a dtype other than bf16.
  // `graphs`: decode-only steps replayed from CUDA graphs (false: every step eager).
  CudaServeDecoder(const DecoderWeights& weights, std::int64_t blocks, std::int64_t page, std::int64_t max_context,
                   std::int64_t layers = -1, bool graphs = true);
  ~CudaServeDecoder() override;

  void forward_chunks(std::span<const std::int32_t> tokens, std::span<const SequenceChunk> chunks,
                      std::span<std::int32_t> next) override;
  void prepare_steps(std::int64_t token_budget, std::int64_t max_sequences) override;
  const std::vector<float>& logits() override;
  void poison_logits() override;
  std::int64_t cache_blocks() const override { return blocks_; }
  std::int64_t page() const override { return page_; }
  std::string implementation() const override;
  std::string implementation_label() const override { return std::string(gpu::kVendorMatmulName) + " + rooftop ragged"; }

 private:
  struct Layer {
    gpu::DeviceBuffer attn_norm, mlp_norm, qkv, o, gate_up, down, qkv_bias, o_bias, gate_up_bias, down_bias;
  };
  gpu::VendorMatmul& matmul(std::int64_t m, std::int64_t n, std::int64_t k);
  void ensure_rows(std::int64_t rows, std::int64_t sampled, std::int64_t table_entries);
  // A step as queued: its rows (padded, for a graph), the leading decode rows of them, the
  // sampled rows, and the split kernel's splits and the keys bound they were chosen for.
  struct StepShape {
    std::int64_t rows = 0, decode_rows = 0, sampled = 0, keys_bound = 0;
    int splits = 0;
  };
  void queue_step(const StepShape& step);
  // The keys bound a decode-only step's graph is captured for: a power of two from 256,
  // at most the context.
  std::int64_t keys_bucket(std::int64_t keys) const;
  // Pads the staged decode-only step to `rows` rows on the scratch block, then uploads it.
  void pad_to(std::int64_t rows);
  void upload_step(std::span<const std::int32_t> tokens);
  void replay(std::int64_t rows, std::int64_t keys_bound);
  static std::int64_t bucket(std::int64_t rows) { return rows <= 8 ? rows : (rows + 15) / 16 * 16; }
  // The split decode kernel's workspace for `rows` decode rows at `splits`, grown (and zeroed)
  // when a step needs more; a step whose shape differs from the last one's zeroes its tickets.
  void ensure_decode_workspace(std::int64_t rows, int splits);
  // Queues the step's attention for one layer: the leading `decode_rows` rows (one new token
  // each) on the split kernel where it runs, every other row on the ragged kernel.
  void queue_attention(std::int64_t layer, const StepShape& step, const void* kc, const void* vc);

  const DecoderWeights& w_;
  std::int64_t blocks_, page_, max_context_, layers_;
  bool graphs_;
  std::int64_t max_graph_rows_ = 0;  // the largest bucket prepare_steps captured
  std::map<std::pair<std::int64_t, std::int64_t>, std::unique_ptr<gpu::CapturedGraph>> graphs_by_shape_;  // (rows, keys bound)
  std::int64_t rows_ = 0, sampled_cap_ = 0, tables_cap_ = 0, last_sampled_ = 0;
  // The split decode kernel: whether it runs this model (head dim 64 or 128, groups 1 to 16),
  // its resident blocks, and this step's decode rows' block tables [row][max blocks a
  // sequence] and keys attended; the workspace's last shape.
  bool split_decode_ = false;
  int resident_blocks_ = 0;
  std::int64_t decode_table_width_ = 0, workspace_rows_ = -1;
  int workspace_splits_ = -1;
  gpu::DeviceBuffer q16_, decode_tables_, decode_keys_, decode_workspace_;
  std::vector<std::int32_t> host_decode_tables_, host_decode_keys_;
  gpu::DeviceBuffer embedding_, head_, final_norm_, k_cache_, v_cache_, rope_table_;
  std::vector<Layer> layer_weights_;
  // A step's: token ids, positions, block-table offsets a row, block tables, sampled rows.
  gpu::DeviceBuffer tokens_, pos_, table_at_, tables_, sample_rows_;
  gpu::DeviceBuffer h_, xn_, qkv_, attn_, gate_up_, act_, h_sampled_, logits_, next_, argmax_workspace_;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::unique_ptr<gpu::VendorMatmul>> matmuls_;
  std::vector<std::int32_t> host_tokens_, host_pos_, host_table_at_, host_tables_, host_sample_rows_, host_next_;
  std::vector<float> host_logits_;
};

}  // namespace rooftop::inference
