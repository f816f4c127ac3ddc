#pragma once
// The collectives a tensor-parallel decoder calls, through the run's transport (the
// collectives suite's: MPI between CPU ranks, NCCL between GPUs), each bounded by the run's
// watchdog: a rank that dies or hangs mid-step ends every rank with kExitCommFault after
// --comm-timeout instead of leaving the others waiting. One process a rank (local rank 0).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "harness/transport.hpp"
#include "harness/watchdog.hpp"

namespace rooftop::inference {

class TensorParallelGroup {
 public:
  // `watchdog` null: unbounded (a unit test's single rank).
  TensorParallelGroup(Transport& transport, Watchdog* watchdog, double timeout_s);
  int tp() const { return transport_.ranks(); }
  int rank() const { return transport_.rank_of(0); }
  Transport& transport() const { return transport_; }
  double timeout_s() const { return timeout_s_; }  // --comm-timeout

  // Sums `count` values over the ranks in place (where the transport's data lives: host
  // memory for MPI, the GPU's for NCCL); fp32 for the CPU decoder's residual.
  void all_reduce(void* data, std::size_t count, Dtype dtype);
  void all_reduce(float* data, std::size_t count) { all_reduce(data, count, Dtype::fp32); }
  // Each rank's `count` values, in rank order, into `out` (tp x count).
  void all_gather(const float* mine, std::size_t count, float* out);
  // Row r's best over the ranks of (value[r], index[r]): the largest value, the lowest index
  // among equal ones (what one rank's first maximum over the whole row gives). Indices must
  // be below 2^24 (they travel as fp32; vocabularies are below kMaxVocab = 2^24).
  void argmax(std::span<const float> value, std::span<const std::int32_t> index, std::span<std::int32_t> out);
  // Waits, bounded as the collectives are, for the work queued on the transport's stream: a
  // GPU decoder's step, whose all-reduces it queues itself without waiting (queue_nccl_on).
  void wait_queued(const char* what);

 private:
  Transport& transport_;
  Watchdog* watchdog_;
  double timeout_s_;
  std::vector<float> pairs_, gathered_;
};

}  // namespace rooftop::inference
