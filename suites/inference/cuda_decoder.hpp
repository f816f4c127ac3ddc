#pragma once
// The decoder's forward on a CUDA GPU, bf16 or fp8 weights: cuBLASLt for every projection and the LM head
// (weights [out, in] as nn.Linear keeps them, fp32 outputs, the residual added by the
// matmul itself), our kernels for the rest (cuda_decoder_kernels.cu), the attention suite's
// fused kernels for attention. A decode step is queued eagerly (a launch a kernel) or
// replayed from a CUDA graph captured once per decoder (its batch is fixed): the launch
// mode is the point's `launch` axis. The weights go to the GPU once.
// Tensor parallel (a group of tp > 1 ranks over NCCL, one process a GPU): the decoder keeps
// its rank's shard (tensor_parallel.hpp); rank 0's o_proj and down add the residual, the
// others' store their partial sums, and one in-place fp32 all-reduce of the hidden state
// each, queued on the decoder's stream (a graph captures them), sums them; the LM head's
// vocabulary slices reduce their argmax keys by an all-gather.
#include <map>
#include <string>
#include <memory>
#include <vector>

#include "devices/cuda/vendor_matmul.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "suites/attention/attention_cuda_prefill.cuh"
#include "suites/inference/cuda_decoder_kernels.cuh"
#include "suites/inference/cuda_gemv.cuh"
#include "suites/inference/decoder.hpp"
#include "suites/inference/tensor_parallel_group.hpp"

namespace rooftop::inference {

enum class Launch { eager, graph };
class CudaStageTimer;
class TpAllReduce;

class CudaDecoder final : public Decoder {
 public:
  // bf16 or fp8 weights (decoder_weights.hpp); throws PointSkipped for another dtype.
  // `page`: 0 for a contiguous KV cache, 16 or 32 for a paged one (its blocks handed to the
  // sequences in a seeded shuffled order, as an engine's allocator leaves them).
  // `fused`: a decode step applies each RMSNorm in the next GEMV's prologue (bf16, where
  // the GEMV runs the projection) instead of a kernel of its own, and RoPE with the cache
  // write in the qkv GEMV's epilogue (where the split-KV kernel reads q and no window cuts).
  // `group` (tp > 1): this rank's part of the model, `weights` being the whole model's.
  CudaDecoder(const DecoderWeights& weights, std::int64_t batch, std::int64_t max_context, std::int64_t layers = -1,
              Launch decode_launch = Launch::eager, std::int64_t page = 0, bool fused = false,
              std::shared_ptr<TensorParallelGroup> group = nullptr);
  ~CudaDecoder() override;

  void forward(std::span<const std::int32_t> tokens, std::int64_t tokens_per_seq, std::span<std::int32_t> next) override;
  std::int64_t length() const override { return length_; }
  void set_length(std::int64_t length) override;
  void fill_cache_randomly(std::int64_t length, std::uint64_t seed) override;
  void prepare_rows(std::int64_t rows) override;
  const std::vector<float>& logits() override;
  void poison_logits() override;
  std::string implementation() const override;
  std::string implementation_label() const override;
  std::string generic_path(std::int64_t tokens_per_seq) const override;
  void set_recorder(StageRecorder* recorder) override;
  bool swiglu_in_gate_up(std::int64_t tokens_per_seq) const override;
  bool norms_in_projections(std::int64_t tokens_per_seq) const override;
  bool rope_in_qkv(std::int64_t tokens_per_seq) const override;
  bool final_norm_in_head(std::int64_t tokens_per_seq) const override;
  double all_reduce_element_bytes() const override { return 4.0; }  // the fp32 hidden state

 private:
  struct Layer {
    gpu::DeviceBuffer attn_norm, mlp_norm, qkv, o, gate_up, down;
    gpu::DeviceBuffer qkv_bias, o_bias, gate_up_bias, down_bias;  // empty where the config has none
  };
  gpu::VendorMatmul& matmul(std::int64_t m, std::int64_t n, std::int64_t k);
  // The projections of a forward, each the same shape in every layer.
  enum Projection { qkv, o_proj, gate_up, down, lm_head, kProjections };
  struct ProjectionChoice {
    bool gemv = true;               // else cuBLASLt's matmul
    kernels::GemvConfig config{};   // the GEMV's
    std::string evidence;           // each candidate's time
  };
  // y (+)= x W^T over `rows` rows: our GEMV or cuBLASLt's matmul, whichever was timed faster
  // for a decode step's rows, cuBLASLt's beyond the GEMV's rows.
  // fp8: x is e4m3 (its producer quantised it with scales.input), the sums are scaled by
  // both scales, and SwiGLU's activation is quantised with act_inverse for the next one.
  // `norm`: the input is that RMSNorm of h_ (norms_in_projections), x unused.
  // `rope`: with GemvEpilogue::rope_cache (rope_in_qkv), the epilogue's outputs.
  void project(Projection p, std::int64_t rows, std::int64_t n, std::int64_t k, const void* x, const void* w, void* y,
               kernels::GemvEpilogue epilogue, const Fp8Scales& scales, float act_inverse = 0,
               const kernels::GemvNorm* norm = nullptr, const kernels::GemvRope* rope = nullptr);
  float inverse_of(const Fp8Scales& s) const;  // fp8: 1 / the input scale; else 0 (bf16 stores)
  float alpha_of(const Fp8Scales& s) const;    // fp8: the two scales' product; else 1
  // Times every GEMV configuration and cuBLASLt's matmul on each projection of a decode step,
  // over every layer's weights (cold, as a forward reads them), and keeps the fastest.
  void tune_decode_projections();
  void ensure_rows(std::int64_t rows);
  // Everything from the embedding to the greedy tokens in next_, for `per_seq` tokens a
  // sequence whose positions and ids are in step_ on the device: what a graph captures.
  void queue_forward(std::int64_t per_seq);
  void queue_attention(std::int64_t layer, std::int64_t per_seq, const void* k_cache, const void* v_cache);
  // Whether layer l's sliding window is shorter than this decoder's context (then its
  // attention runs the plain kernel, which bounds the keys by the window).
  bool window_cuts(std::int64_t layer) const;
  std::string family_notes() const;  // for implementation()
  bool fused_prefill(std::int64_t per_seq) const;
  // Captures the decode step's graph where the launch mode asks for one and none is held.
  void ensure_decode_graph();
  // Tensor parallel: the residual's epilogue (rank 0 adds it, the others store), the sum of
  // the ranks' partials in h_ (rows x hidden), and the ranks' best tokens in next_.
  kernels::GemvEpilogue residual_epilogue() const;
  // `next`: the weights of the projection after it, prefetched into L2 meanwhile.
  void all_reduce_hidden(std::int64_t rows, const gpu::DeviceBuffer& next);
  void reduce_argmax(std::int64_t rows);
  // Waits for the queued step: bounded by the group's timeout where tensor parallel.
  void wait_for_step();

  // Tensor parallel: the group (null: one GPU), the rank's slice and its shard of the weights.
  std::shared_ptr<TensorParallelGroup> group_;
  TensorParallelSlice slice_;
  std::unique_ptr<const DecoderWeights> shard_;
  std::int64_t model_vocab_;
  std::unique_ptr<TpAllReduce> tp_reduce_;  // NCCL's or the one-shot over peer memory, timed
  gpu::DeviceBuffer tp_keys_, tp_gathered_;  // the argmax keys: this rank's [rows], all ranks' [tp][rows]
  const DecoderWeights& w_;  // the shard where tensor parallel, else the weights given
  std::int64_t batch_, max_context_, layers_, length_ = 0, rows_ = 0;
  kernels::CacheLayout cache_;  // capacity: max_context rounded up to whole pages
  Launch decode_launch_;
  bool fp8_, fused_;
  StageRecorder* recorder_ = nullptr;
  std::unique_ptr<CudaStageTimer> stage_timer_;  // device events around each stage, while profiling
  gpu::DeviceBuffer embedding_, head_, final_norm_, k_cache_, v_cache_, rope_table_, argmax_workspace_, block_table_;
  gpu::DeviceBuffer k_rows_, v_rows_;  // a paged cache's prefill: k and v as the fused kernel reads them
  std::vector<Layer> layer_weights_;
  // step_: the cache length before the forward, after it, then the token ids; staged from
  // pinned host memory with one copy, so a graph's replay finds this step's values.
  // xn_ and act_ hold e4m3 for fp8, as x8_ the quantised attention output.
  gpu::DeviceBuffer step_, h_, xn_, qkv_, q16_, attn_, gate_up_, act_, x8_, logits_, next_;
  std::unique_ptr<gpu::PinnedBuffer> step_host_, next_host_;
  // A decode step's attention: the attention suite's split-KV kernel with the splits chosen
  // once for max_context (a graph replays one launch); prefill from an empty cache: its
  // fused tensor-core kernel. Where the head dim or group does not fit them, a plain kernel,
  // and no_fast_decode_ names what did not fit ("group 17", "head dim 80") for the
  // implementation text.
  bool split_decode_ = false, fused_prefill_ok_ = false, warmed_up_ = false;
  std::string no_fast_decode_;
  int decode_splits_ = 0;
  attention::PrefillConfig prefill_config_{};
  gpu::DeviceBuffer decode_workspace_;
  gpu::CapturedGraph decode_graph_;
  std::vector<ProjectionChoice> decode_choice_;  // by Projection, once tuned
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::unique_ptr<gpu::VendorMatmul>> matmuls_;
  std::vector<float> host_logits_;
};

}  // namespace rooftop::inference
