#pragma once
// The decoder's forward on a CUDA GPU, bf16: cuBLASLt for every projection and the LM head
// (weights [out, in] as nn.Linear keeps them, fp32 outputs), our kernels for the rest
// (cuda_decoder_kernels.cu). Eager: one launch a kernel, each forward ends with the
// greedy tokens copied to the host. The weights go to the GPU once.
#include <map>
#include <memory>
#include <vector>

#include "devices/cuda/cublaslt_matmul.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "suites/inference/decoder.hpp"

namespace rooftop::inference {

class CudaDecoder final : public Decoder {
 public:
  // Throws PointSkipped for a dtype other than bf16 (fp8 weights come with their issue).
  CudaDecoder(const DecoderWeights& weights, std::int64_t batch, std::int64_t max_context, std::int64_t layers = -1);
  ~CudaDecoder() override;

  void forward(std::span<const std::int32_t> tokens, std::int64_t tokens_per_seq, std::span<std::int32_t> next) override;
  std::int64_t length() const override { return length_; }
  void set_length(std::int64_t length) override;
  void fill_cache_randomly(std::int64_t length, std::uint64_t seed) override;
  void prepare_rows(std::int64_t rows) override;
  const std::vector<float>& logits() override;
  void poison_logits() override;
  std::string implementation() const override;
  std::string implementation_label() const override { return "cuBLASLt + rooftop"; }
  void set_recorder(StageRecorder* recorder) override { recorder_ = recorder; }

 private:
  struct Layer {
    gpu::DeviceBuffer attn_norm, mlp_norm, qkv, o, gate_up, down;
  };
  gpu::CublasLtMatmul& matmul(std::int64_t m, std::int64_t n, std::int64_t k);
  void ensure_rows(std::int64_t rows);
  void decode_attention(const void* k_cache, const void* v_cache);

  const DecoderWeights& w_;
  std::int64_t batch_, max_context_, layers_, length_ = 0, rows_ = 0;
  StageRecorder* recorder_ = nullptr;
  gpu::DeviceBuffer embedding_, head_, final_norm_, k_cache_, v_cache_;
  std::vector<Layer> layer_weights_;
  gpu::DeviceBuffer tokens_, h_, xn_, qkv_, attn_, proj_, gate_up_, act_, logits_, next_;
  // A decode step's attention: the attention suite's split-KV kernel (its q in bf16, its
  // workspace); where the head dim or group does not fit it, our plain kernel.
  bool split_decode_ = false;
  int resident_blocks_ = 0, last_splits_ = 0;
  gpu::DeviceBuffer q16_, decode_workspace_;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::unique_ptr<gpu::CublasLtMatmul>> matmuls_;
  std::vector<float> host_logits_;
};

}  // namespace rooftop::inference
