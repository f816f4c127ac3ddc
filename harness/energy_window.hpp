#pragma once
// A repetition's energy: the backend's energy counter and the host's clock read before and
// after it. Where the device has no counter the sample keeps zeros (not measured).
#include <chrono>
#include <optional>

#include "harness/backend.hpp"
#include "harness/results.hpp"

namespace rooftop {

class EnergyWindow {
 public:
  explicit EnergyWindow(const Backend& backend)
      : backend_(backend), start_j_(backend.energy_j()), start_(std::chrono::steady_clock::now()) {}
  // Fills the sample's energy_j and wall_s.
  void close(Sample& s) const {
    const auto end_j = backend_.energy_j();
    if (!start_j_ || !end_j || *end_j < *start_j_) return;  // no counter, or it was reset
    s.energy_j = *end_j - *start_j_;
    s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  const Backend& backend_;
  std::optional<double> start_j_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace rooftop
