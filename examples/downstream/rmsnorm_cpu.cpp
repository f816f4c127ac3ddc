// A fused RMSNorm, y = x / sqrt(mean(x^2) + eps) * w, row by row: this project's own kernel,
// benchmarked by rooftop. One read of x, one write of y: a memory-bound kernel, so its
// place on the roofline is a fraction of the DRAM (or cache) bandwidth.
#include <rooftop/rooftop.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "rmsnorm.hpp"

namespace {

constexpr float kEps = 1e-6f;

// Built for several ISAs, chosen at run time: the machine that runs it decides, not the one
// that built it.
__attribute__((target_clones("avx512f", "avx2", "default"))) void rmsnorm_rows(const float* x, const float* w, float* y,
                                                                                std::int64_t rows, std::int64_t cols) {
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::int64_t c = 0; c < cols; ++c) sum += xr[c] * xr[c];
    const float inv = 1.0f / std::sqrt(sum / static_cast<float>(cols) + kEps);
#pragma omp simd
    for (std::int64_t c = 0; c < cols; ++c) yr[c] = xr[c] * inv * w[c];
  }
}

class RmsNormCpu final : public rooftop::Case {
 public:
  RmsNormCpu(const rooftop::Point& p, std::uint64_t seed)
      : rows_(p.get("rows")), cols_(p.get("cols")), x_(rows_ * cols_), w_(cols_), y_(rows_ * cols_) {
    rmsnorm_example::fill(x_, w_, seed);
  }
  void run() override { rmsnorm_rows(x_.data(), w_.data(), y_.data(), rows_, cols_); }
  rooftop::Check check() override {
    std::fill(y_.begin(), y_.end(), std::numeric_limits<float>::quiet_NaN());  // unwritten elements show
    run();
    return rmsnorm_example::compare(x_, w_, y_, rows_, cols_, kEps);
  }
  std::string implementation() const override { return "fused rmsnorm, OpenMP, target_clones"; }

 private:
  std::int64_t rows_, cols_;
  std::vector<float> x_, w_, y_;
};

}  // namespace

ROOFTOP_BENCHMARK("rmsnorm")
                            .description("Fused RMSNorm over rows (this example's CPU kernel)")
                            .axis("rows", {1024, 4096})
                            .axis("cols", {2048, 8192})
                            .axis("rows", {16384}, rooftop::Tier::full)
                            .work(rmsnorm_example::work)
                            .memory(rmsnorm_example::memory)
                            .setup([](const rooftop::Point& p, std::uint64_t seed) -> std::unique_ptr<rooftop::Case> {
                              return std::make_unique<RmsNormCpu>(p, seed);
                            });
