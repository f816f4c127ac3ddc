#pragma once
// The fused CPU attention's fp32 prefill path: the same online softmax over key blocks as
// attention_cpu_fused.cpp, with each tile's two products (S = Q K^T, O += P V) run by
// oneDNN's matmul (brgemm on AVX-512), whose fp32 micro-kernels our own do not match. The
// scores of one tile stay in the thread's cache; nothing of S x S size reaches memory.
#include <dnnl.hpp>
#include <string>
#include <vector>

#include "suites/attention/attention_data.hpp"

namespace rooftop::attention {

class OnednnTiledAttention {
 public:
  // fp32 prefill on a contiguous cache; throws PointSkipped otherwise.
  explicit OnednnTiledAttention(AttentionData& data);
  void execute();
  const std::string& implementation() const { return implementation_; }

 private:
  // One OpenMP thread's primitives and tile buffers (primitives with library-managed
  // scratchpads are not run concurrently).
  struct Worker {
    dnnl::stream stream;
    dnnl::matmul scores, output;
    std::vector<float> q, s, o, m, l, k_pad, v_pad;
    std::vector<int> limit;
  };
  void run_task(Worker& w, std::int64_t task);

  AttentionData& data_;
  dnnl::engine engine_;
  dnnl::memory::desc q_md_, kt_md_, s_md_, v_md_, o_md_;
  std::int64_t positions_ = 0, rows_ = 0;  // query positions per task; rows = group x positions
  std::vector<Worker> workers_;
  std::string implementation_;
};

}  // namespace rooftop::attention
