#pragma once
// A one-shot all-reduce over the GPUs' peer memory (CUDA IPC, over NVLink or PCIe) for the
// small messages of a tensor-parallel decode step, where NCCL's latency (8.5 to 9.4 us for
// 16 KB between two H200s) is the cost, not its bandwidth: one kernel a call, each element
// stored into every peer's buffer with the call's epoch beside it, no barrier
// (cuda_peer_all_reduce.cu). The ranks must be one process a GPU on one host, each GPU able
// to reach the others' memory; open() says why not otherwise.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "devices/cuda/gpu_runtime.hpp"
#include "harness/transport.hpp"
#include "suites/inference/cuda_peer_all_reduce.cuh"

namespace rooftop::inference {

class PeerAllReduce {
 public:
  // Collective: every rank of `transport` calls it at the same point and gets an instance
  // or, every rank alike, null with `why` set. `capacity`: the most floats a call sums.
  static std::unique_ptr<PeerAllReduce> open(Transport& transport, std::size_t capacity, double timeout_s,
                                             std::string& why);
  ~PeerAllReduce();
  PeerAllReduce(const PeerAllReduce&) = delete;
  PeerAllReduce& operator=(const PeerAllReduce&) = delete;

  std::size_t capacity() const { return capacity_; }
  // Sums `count` (<= capacity) floats of `data` over the ranks in place, queued on
  // gpu::stream(); every rank must queue the same calls in the same order (as with NCCL).
  void queue(float* data, std::size_t count, kernels::L2Prefetch prefetch = {});

 private:
  PeerAllReduce(int ranks, int rank, std::size_t capacity, double timeout_s);
  int ranks_, rank_;
  std::size_t capacity_;
  std::uint64_t timeout_ns_;
  gpu::DeviceBuffer region_, epochs_;  // what the peers write into here, and the call counters
  std::vector<void*> opened_;          // the peers' buffers, mapped here
  kernels::PeerBuffers peers_{};
};

}  // namespace rooftop::inference
