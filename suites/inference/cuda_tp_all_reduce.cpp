#include "suites/inference/cuda_tp_all_reduce.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "harness/errors.hpp"
#include "suites/inference/tensor_parallel.hpp"

namespace rooftop::inference {

TpAllReduce::TpAllReduce(TensorParallelGroup& group, std::size_t decode_floats) : group_(group) {
  const auto knobs = tp_all_reduce_knobs_from_env();
  const std::string& mode = knobs.algorithm;
  prefetch_bytes_ = kernels::l2_prefetch_supported() ? static_cast<std::size_t>(knobs.prefetch_mib * (1 << 20)) : 0;
  std::string why = "ROOFTOP_TP_ALL_REDUCE=nccl";
  if (mode != "nccl") peer_ = PeerAllReduce::open(group.transport(), decode_floats, group.timeout_s(), why);
  if (!peer_) {
    if (mode == "peer") throw PointSkipped("the one-shot peer all-reduce cannot run here: " + why);
    description_ = fmt::format("NCCL's all-reduce (no one-shot peer all-reduce: {})", why);
    return;
  }
  const std::string wrong = check_peer(decode_floats);
  if (!group.transport().all_processes(wrong.empty()))
    throw std::runtime_error("the one-shot peer all-reduce gave a wrong sum: " + (wrong.empty() ? "on another rank" : wrong));
  // Both timed back to back at the decode step's size; every rank takes the slowest rank's
  // times, so all choose alike.
  gpu::DeviceBuffer scratch(decode_floats * 4);
  ROOFTOP_GPU_CHECK(cudaMemsetAsync(scratch.get(), 0, scratch.bytes(), gpu::stream()));
  const double nccl_us = group.transport().max_over_processes(time_call(scratch.as<float>(), decode_floats, false));
  const double peer_us = group.transport().max_over_processes(time_call(scratch.as<float>(), decode_floats, true));
  const bool use_peer = mode == "peer" || peer_us < nccl_us;
  const std::string timed = fmt::format("timed at a decode step's {} KiB: one-shot over peer memory {:.1f} us, NCCL {:.1f} "
                                        "us a call{}", decode_floats * 4 / 1024, peer_us, nccl_us,
                                        mode == "peer" ? "; ROOFTOP_TP_ALL_REDUCE=peer" : "");
  if (!use_peer) {
    description_ = fmt::format("NCCL's all-reduce ({})", timed);
    peer_.reset();
    return;
  }
  description_ = fmt::format(
      "a one-shot all-reduce over peer memory for up to {} KiB ({}), NCCL's beyond; {}", peer_->capacity() * 4 / 1024,
      timed,
      prefetch_bytes_ ? fmt::format("up to {:g} MiB of the next projection's weights prefetched into L2 meanwhile",
                                    static_cast<double>(prefetch_bytes_) / (1 << 20))
      : kernels::l2_prefetch_supported() ? std::string("no L2 prefetch")
                                         : std::string("no L2 prefetch (it needs sm_90)"));
}

std::string TpAllReduce::check_peer(std::size_t count) {
  // Small integers: every order of summing them is exact.
  const auto value = [](int rank, std::size_t i, int call) {
    return static_cast<float>((rank * 131 + static_cast<int>(i % 977) * 7 + call * 3) % 64 - 32);
  };
  // Three calls queued back to back (each launch overlapping the last), both halves of the
  // buffers, the last one odd-sized.
  constexpr int kCalls = 3;
  std::vector<gpu::DeviceBuffer> data;
  std::vector<std::vector<float>> mine(kCalls), got(kCalls);
  for (int call = 0; call < kCalls; ++call) {
    const std::size_t n = call < kCalls - 1 || count % 2 ? count : count - 1;
    mine[call].resize(n);
    got[call].resize(n);
    for (std::size_t i = 0; i < n; ++i) mine[call][i] = value(group_.rank(), i, call);
    data.emplace_back(n * 4);
    ROOFTOP_GPU_CHECK(cudaMemcpyAsync(data.back().get(), mine[call].data(), n * 4, cudaMemcpyHostToDevice, gpu::stream()));
  }
  ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
  for (int call = 0; call < kCalls; ++call) peer_->queue(data[call].as<float>(), got[call].size());
  for (int call = 0; call < kCalls; ++call)
    ROOFTOP_GPU_CHECK(cudaMemcpyAsync(got[call].data(), data[call].get(), got[call].size() * 4, cudaMemcpyDeviceToHost,
                                      gpu::stream()));
  group_.wait_queued("checking the one-shot all-reduce");
  for (int call = 0; call < kCalls; ++call)
    for (std::size_t i = 0; i < got[call].size(); ++i) {
      float sum = 0;
      for (int q = 0; q < group_.tp(); ++q) sum += value(q, i, call);
      if (got[call][i] != sum)
        return fmt::format("element {} of {} (call {}) is {} where the ranks' values sum to {}", i, got[call].size(),
                           call, got[call][i], sum);
    }
  return {};
}

double TpAllReduce::time_call(float* data, std::size_t count, bool peer) {
  constexpr int kWarm = 20, kCalls = 200;
  const auto call = [&] {
    if (peer) peer_->queue(data, count);
    else group_.transport().all_reduce(0, data, data, count, Dtype::fp32);
  };
  for (int i = 0; i < kWarm; ++i) call();
  group_.wait_queued("timing the tensor-parallel all-reduce");
  cudaEvent_t start = nullptr, stop = nullptr;
  ROOFTOP_GPU_CHECK(cudaEventCreate(&start));
  ROOFTOP_GPU_CHECK(cudaEventCreate(&stop));
  ROOFTOP_GPU_CHECK(cudaEventRecord(start, gpu::stream()));
  for (int i = 0; i < kCalls; ++i) call();
  ROOFTOP_GPU_CHECK(cudaEventRecord(stop, gpu::stream()));
  group_.wait_queued("timing the tensor-parallel all-reduce");
  float ms = 0;
  ROOFTOP_GPU_CHECK(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms * 1e3 / kCalls;
}

void TpAllReduce::queue(float* data, std::size_t count, kernels::L2Prefetch next) {
  if (peer_ && count <= peer_->capacity()) {
    peer_->queue(data, count, {next.begin, next.begin ? std::min(next.bytes, prefetch_bytes_) : 0});
    return;
  }
  // No prefetch beside NCCL's kernel: a kernel of its own cost more than it saved (measured).
  group_.transport().all_reduce(0, data, data, count, Dtype::fp32);
}

}  // namespace rooftop::inference
