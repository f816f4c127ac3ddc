#pragma once
// How a tensor-parallel CUDA decoder sums its hidden state after o_proj and down: NCCL's
// all-reduce, or the one-shot peer all-reduce (cuda_peer_all_reduce.hpp) where both were
// timed at the decode step's message and it was the faster; meanwhile, its spare blocks
// prefetch the weights of the projection that runs next into L2, so the wait is not idle HBM
// time.
// Knobs (docs/inference.md): ROOFTOP_TP_ALL_REDUCE=auto|nccl|peer (auto: measured),
// ROOFTOP_TP_PREFETCH_MB=N (the most prefetched before each projection; 0: none).
#include <cstddef>
#include <memory>
#include <string>

#include "suites/inference/cuda_peer_all_reduce.hpp"
#include "suites/inference/tensor_parallel_group.hpp"

namespace rooftop::inference {

class TpAllReduce {
 public:
  // Collective: every rank constructs it at the same point. `decode_floats`: a decode
  // step's message (batch x hidden); larger ones (a prompt's rows) always go to NCCL.
  // Throws InputError for a knob it does not know.
  TpAllReduce(TensorParallelGroup& group, std::size_t decode_floats);
  // Sums `count` floats of `data` (the GPU's) over the ranks in place, on gpu::stream(),
  // the one-shot prefetching up to ROOFTOP_TP_PREFETCH_MB of `next` meanwhile.
  void queue(float* data, std::size_t count, kernels::L2Prefetch next);
  // For the implementation text: which algorithm, each one's measured time, the prefetch.
  const std::string& description() const { return description_; }

 private:
  // Three calls on exact sums, both halves of the buffers: "" or what was wrong.
  std::string check_peer(std::size_t count);
  double time_call(float* data, std::size_t count, bool peer);
  TensorParallelGroup& group_;
  std::unique_ptr<PeerAllReduce> peer_;  // null: NCCL for every size
  std::size_t prefetch_bytes_ = 0;
  std::string description_;
};

}  // namespace rooftop::inference
