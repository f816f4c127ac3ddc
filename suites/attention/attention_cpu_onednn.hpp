#pragma once
// The unfused CPU attention through oneDNN: scores = Q K^T / sqrt(D) (one batched matmul
// per (batch, KV head), the group's query heads stacked), the causal mask written into the
// scores, softmax, then O = P V. It materialises the B x Hq x S x S score matrix in fp32.
#include <dnnl.hpp>
#include <string>

#include "suites/attention/attention_data.hpp"

namespace rooftop::attention {

class OnednnAttention {
 public:
  // fp32 or bf16 (P rounded to bf16 for P x V); throws PointSkipped otherwise.
  explicit OnednnAttention(AttentionData& data);
  void execute();
  const std::string& implementation() const { return implementation_; }

 private:
  AttentionData& data_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::memory q_, k_, v_, scores_, p_low_, o_;
  dnnl::matmul qk_, pv_;
  dnnl::softmax_forward softmax_;
  dnnl::reorder to_low_;
  bool low_precision_ = false;
  std::string implementation_;
};

}  // namespace rooftop::attention
