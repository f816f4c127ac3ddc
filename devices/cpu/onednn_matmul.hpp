#pragma once
// A oneDNN matmul C[M,N] = A[M,K] x B[K,N] with plain A and C and B prepacked in the layout
// oneDNN prefers (weights packed once, as inference does). Used by the GEMM suite and by
// `characterize` for the matrix peaks.
#include <cstdint>
#include <dnnl.hpp>
#include <string>

#include "harness/dtype.hpp"

namespace rooftop::cpu {

class OnednnMatmul {
 public:
  // fp32: f32 x f32 -> f32; bf16: bf16 x bf16 -> bf16 (f32 accumulation); int8: s8 x s8 -> s32.
  // Throws PointSkipped when oneDNN has no implementation on this CPU, except with
  // `widen_bf16`: a bf16 matmul oneDNN cannot run here (below AVX-512) is then an fp32 one,
  // A widened and C narrowed each call (threaded loops: oneDNN's reference reorder took
  // 4x the matmul's time at 512^3) and B widened once when packed.
  OnednnMatmul(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k, bool widen_bf16 = false);
  std::string implementation() const { return implementation_; }
  bool widened() const { return a_f32_ != dnnl::memory(); }  // bf16 in memory, fp32 arithmetic
  void* a() { return a_.get_data_handle(); }
  void* b() { return b_plain_.get_data_handle(); }  // plain [K, N]; call pack_weights() after filling
  void* c() { return c_.get_data_handle(); }
  void pack_weights();  // reorders B into the primitive's layout
  void execute();       // runs and waits for completion

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::matmul matmul_;
  dnnl::memory a_, b_plain_, b_packed_, c_;
  dnnl::memory a_f32_, c_f32_;  // the fp32 copies of a widened bf16 matmul
  std::string implementation_;
};

}  // namespace rooftop::cpu
