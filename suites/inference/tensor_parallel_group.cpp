#include "suites/inference/tensor_parallel_group.hpp"

#include <optional>

namespace rooftop::inference {
namespace {

// Armed for one collective: a dead or stopped peer ends this rank after the timeout.
struct Bounded {
  Bounded(Watchdog* dog, double timeout_s, const char* what) {
    if (dog) armed.emplace(*dog, timeout_s + 1, what);
  }
  std::optional<Watchdog::Armed> armed;
};

}  // namespace

TensorParallelGroup::TensorParallelGroup(Transport& t, Watchdog* dog, double timeout_s)
    : transport_(t), watchdog_(dog), timeout_s_(timeout_s) {}

void TensorParallelGroup::all_reduce(void* data, std::size_t count, Dtype dtype) {
  const Bounded bound(watchdog_, timeout_s_, "a tensor-parallel all-reduce of a decode step");
  transport_.all_reduce(0, data, data, count, dtype);
  transport_.wait(timeout_s_);
}

void TensorParallelGroup::wait_queued(const char* what) {
  const Bounded bound(watchdog_, timeout_s_, what);
  transport_.wait(timeout_s_);
}

void TensorParallelGroup::all_gather(const float* mine, std::size_t count, float* out) {
  const Bounded bound(watchdog_, timeout_s_, "a tensor-parallel all-gather of a decode step");
  transport_.all_gather(0, mine, out, count, Dtype::fp32);
  transport_.wait(timeout_s_);
}

void TensorParallelGroup::argmax(std::span<const float> value, std::span<const std::int32_t> index,
                                 std::span<std::int32_t> out) {
  const std::size_t rows = value.size();
  pairs_.resize(2 * rows);
  for (std::size_t r = 0; r < rows; ++r) {
    pairs_[2 * r] = value[r];
    pairs_[2 * r + 1] = static_cast<float>(index[r]);  // exact below 2^24
  }
  gathered_.resize(2 * rows * static_cast<std::size_t>(tp()));
  all_gather(pairs_.data(), 2 * rows, gathered_.data());
  for (std::size_t r = 0; r < rows; ++r) {
    float best = gathered_[2 * r];
    auto at = static_cast<std::int32_t>(gathered_[2 * r + 1]);
    for (int q = 1; q < tp(); ++q) {
      const float v = gathered_[(static_cast<std::size_t>(q) * rows + r) * 2];
      const auto i = static_cast<std::int32_t>(gathered_[(static_cast<std::size_t>(q) * rows + r) * 2 + 1]);
      if (v > best || (v == best && i < at)) {
        best = v;
        at = i;
      }
    }
    out[r] = at;
  }
}

}  // namespace rooftop::inference
