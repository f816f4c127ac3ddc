#include "suites/attention/attention_cpu.hpp"

#include <optional>

#include "harness/errors.hpp"
#include "suites/attention/attention_cpu_fused.hpp"
#include "suites/attention/attention_cpu_onednn.hpp"

namespace rooftop::attention {
namespace {

class AttentionCpu final : public Instance {
 public:
  AttentionCpu(const Problem& p, std::uint64_t seed) : seed_(seed), data_(shape_of(p), parse_dtype(p.dtype), seed) {
    if (data_.shape().impl == "onednn") onednn_.emplace(data_);
  }
  std::string implementation() const override {
    return onednn_ ? onednn_->implementation() : "rooftop fused CPU attention (online softmax, 16x64 tiles)";
  }
  Correctness check() override {
    data_.poison_output();
    run();
    return data_.check(seed_ + 7);
  }
  void run() override {
    if (onednn_) onednn_->execute();
    else fused_attention_cpu(data_);
  }

 private:
  std::uint64_t seed_;
  AttentionData data_;
  std::optional<OnednnAttention> onednn_;
};

}  // namespace

std::unique_ptr<Instance> create_attention_cpu(const Problem& problem, std::uint64_t seed) {
  const auto shape = shape_of(problem);
  if (!shape.tile.empty()) throw PointSkipped("a tile configuration names a GPU prefill kernel; the CPU kernel has one tiling");
  if (shape.impl == "cublaslt") throw PointSkipped("the cuBLASLt path runs on the CUDA backend");
  return std::make_unique<AttentionCpu>(problem, seed);
}

}  // namespace rooftop::attention
