#include "suites/attention/attention_cpu.hpp"

#include <optional>

#include <fmt/format.h>

#include "harness/errors.hpp"
#include "harness/registry.hpp"
#include "suites/attention/attention_cpu_decode.hpp"
#include "suites/attention/attention_cpu_fused.hpp"
#include "suites/attention/attention_cpu_onednn.hpp"
#include "suites/attention/attention_cpu_tiled.hpp"

namespace rooftop::attention {

bool cpu_tiled_prefill(const AttentionShape& s, Dtype dtype) {
  return (dtype == Dtype::fp32 || (dtype == Dtype::bf16 && OnednnTiledAttention::native_bf16())) && !s.decode && !s.block &&
         s.impl == "fused" && s.group() * s.sq >= 8;
}

std::vector<std::string> cpu_tile_candidates(const AttentionShape& s, Dtype dtype) {
  return cpu_tiled_prefill(s, dtype) && s.tile.empty() ? OnednnTiledAttention::tile_candidates() : std::vector<std::string>{};
}

namespace {

class AttentionCpu final : public Instance {
 public:
  AttentionCpu(const Problem& p, std::uint64_t seed) : seed_(seed), data_(shape_of(p), p.dtype, seed) {
    const auto& s = data_.shape();
    if (s.impl == "onednn") onednn_.emplace(data_);
    else if (!s.tile.empty() && !cpu_tiled_prefill(s, data_.dtype()))
      throw PointSkipped("a tile configuration names the oneDNN-tiled prefill, which runs fp32, and bf16 on a CPU with "
                         "bf16 units, on a contiguous cache");
    // Prefill in fp32, and in bf16 where the CPU has bf16 units: the fused path's tile
    // products by oneDNN (its micro-kernels beat ours, and bf16 then runs on those units
    // instead of widening to fp32). Decode's few rows per KV head, paged caches, fp16 and
    // bf16 on a CPU without bf16 units stay on our own kernel.
    else if (cpu_tiled_prefill(s, data_.dtype())) tiled_.emplace(data_, OnednnTiledAttention::tile_named(s.tile));
  }
  std::string implementation() const override {
    if (onednn_) return onednn_->implementation();
    if (tiled_) return tiled_->implementation();
    if (decode_kernel_applies(data_))
      return fmt::format("rooftop CPU decode (bandwidth kernel: the cache streamed in place, split along its length to fill "
                         "the threads; {})",
                         cpu_decode_path(data_.dtype()) == CpuDecodePath::bf16_dot ? "AVX512_BF16 dot products"
                                                                                   : "fp32 FMAs");
    return "rooftop fused CPU attention (online softmax, 16x64 tiles)";
  }
  std::string implementation_label() const override {
    return onednn_ ? "oneDNN" : tiled_ ? "fused, oneDNN tiles" : decode_kernel_applies(data_) ? "decode, split-KV" : "fused";
  }
  Correctness check() override {
    data_.poison_output();
    run();
    return data_.check(seed_ + 7);
  }
  void run() override {
    if (onednn_) onednn_->execute();
    else if (tiled_) tiled_->execute();
    else if (decode_kernel_applies(data_)) decode_attention_cpu(data_);
    else fused_attention_cpu(data_);
  }

 private:
  std::uint64_t seed_;
  AttentionData data_;
  std::optional<OnednnAttention> onednn_;
  std::optional<OnednnTiledAttention> tiled_;
};

}  // namespace

std::unique_ptr<Instance> create_attention_cpu(const Problem& problem, std::uint64_t seed) {
  const auto shape = shape_of(problem);
  if (shape.impl == "cublaslt") throw PointSkipped("the cuBLASLt path runs on the CUDA backend");
  return std::make_unique<AttentionCpu>(problem, seed);
}

namespace {
const RegisterImplementation kAttentionCpu("attention", "cpu", [](const Problem& p, const SetupContext& setup) {
  return create_attention_cpu(p, setup.seed);
});
}  // namespace

}  // namespace rooftop::attention
