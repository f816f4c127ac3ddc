#pragma once
// cuDNN's fused attention through its graph API, the vendor's best beside our kernels:
// S = Q K^T in fp32, times 1/sqrt(D), the causal mask (key column <= query row), softmax
// (max, subtract, exp, sum, divide) into P in the input type, O = P V. cuDNN recognises the
// graph as scaled dot-product attention and runs it as one flash kernel; GQA is K and V with
// fewer heads than Q.
#include <memory>
#include <string>

#include "harness/dtype.hpp"
#include "suites/attention/attention_problem.hpp"

namespace rooftop::attention {

class CudnnSdpa {
 public:
  // Builds the graph and the first execution plan cuDNN's heuristics offer that finalizes;
  // throws PointSkipped where cuDNN is absent or has no engine for this shape and dtype.
  CudnnSdpa(const AttentionShape& shape, Dtype dtype);
  ~CudnnSdpa();
  CudnnSdpa(const CudnnSdpa&) = delete;
  CudnnSdpa& operator=(const CudnnSdpa&) = delete;

  // Device pointers to Q, K, V [B,H,S,D] (contiguous) and O; fixed from here on.
  void bind(const void* q, const void* k, const void* v, void* o);
  void run() const;  // queues the graph on rooftop's stream
  // "cuDNN 9.19.0 graph SDPA, engine 8, heuristic choice 1 of 3, workspace 0 B"
  std::string description() const;

 private:
  struct Graph;
  std::unique_ptr<Graph> graph_;
};

}  // namespace rooftop::attention
