#include "suites/gemm/gemm_cpu.hpp"

#include <fmt/format.h>

#include <vector>

#include "devices/cpu/cpu_gemv.hpp"
#include "devices/cpu/onednn_matmul.hpp"
#include "harness/bf16.hpp"
#include "harness/dtype_facts.hpp"
#include "harness/errors.hpp"
#include "harness/registry.hpp"
#include "harness/random_fill.hpp"
#include "suites/gemm/gemm_reference.hpp"

namespace rooftop::gemm {
namespace {

class GemmCpu final : public Instance {
 public:
  GemmCpu(const Problem& p, std::uint64_t seed)
      : dtype_(p.dtype), shape_(shape_of(p)), seed_(seed), matmul_(dtype_, shape_.m, shape_.n, shape_.k, /*widen_bf16=*/true) {
    const std::size_t a_count = static_cast<std::size_t>(shape_.m * shape_.k);
    const std::size_t b_count = static_cast<std::size_t>(shape_.k * shape_.n);
    // Fresh random inputs from the point's seed; never zeros, never constant.
    const FillRange range = fill_range(dtype_);
    switch (dtype_) {
      case Dtype::fp32:
        fill_uniform({static_cast<float*>(matmul_.a()), a_count}, seed, range.lo, range.hi);
        fill_uniform({static_cast<float*>(matmul_.b()), b_count}, seed + 1, range.lo, range.hi);
        break;
      case Dtype::bf16:
        fill_uniform_bf16({static_cast<std::uint16_t*>(matmul_.a()), a_count}, seed, range.lo, range.hi);
        fill_uniform_bf16({static_cast<std::uint16_t*>(matmul_.b()), b_count}, seed + 1, range.lo, range.hi);
        break;
      case Dtype::int8:
        fill_uniform_int8({static_cast<std::int8_t*>(matmul_.a()), a_count}, seed, static_cast<int>(range.lo), static_cast<int>(range.hi));
        fill_uniform_int8({static_cast<std::int8_t*>(matmul_.b()), b_count}, seed + 1, static_cast<int>(range.lo), static_cast<int>(range.hi));
        break;
      default: throw PointSkipped(std::string("the CPU GEMM has no ") + std::string(dtype_name(dtype_)) + " path");
    }
    matmul_.pack_weights();
    if (matmul_.widened() && shape_.m <= kGemvRows) choose_gemv();
  }

  std::string implementation() const override {
    if (!gemv_) return matmul_.implementation();
    return fmt::format("rooftop's GEMV ({}): bf16 B read as stored and widened in registers, fp32 FMAs (oneDNN has no "
                       "bf16 matmul on this CPU; a generic path, not a bf16 roof)",
                       cpu::gemv_isa_name());
  }

  Correctness check() override {
    poison_output(dtype_, matmul_.c(), shape_.m * shape_.n);
    run();
    return check_gemm({dtype_, shape_, matmul_.a(), matmul_.b(), matmul_.c()}, seed_ + 2);
  }

  void run() override { gemv_ ? run_gemv() : matmul_.execute(); }

 private:
  void run_gemv() {
    cpu::gemv_rows(Dtype::bf16, shape_.m, shape_.n, shape_.k, matmul_.a(), b_rows_.data(), y_.data());
    auto* c = static_cast<std::uint16_t*>(matmul_.c());
    for (std::size_t i = 0; i < y_.size(); ++i) c[i] = float_to_bf16(y_[i]);
  }

  Dtype dtype_;
  GemmShape shape_;
  std::uint64_t seed_;
  cpu::OnednnMatmul matmul_;
  // A bf16 GEMM of few rows where oneDNN has no bf16 matmul: our GEMV reads B's bf16 as
  // stored (oneDNN's fp32 fallback reads twice the bytes), where it is the faster here.
  static constexpr std::int64_t kGemvRows = 16;
  bool gemv_ = false;
  std::vector<std::uint16_t> b_rows_;  // B transposed: [N, K], each output's weights in a row
  std::vector<float> y_;

  void choose_gemv() {
    const auto* b = static_cast<const std::uint16_t*>(matmul_.b());
    b_rows_.resize(static_cast<std::size_t>(shape_.n * shape_.k));
    for (std::int64_t kk = 0; kk < shape_.k; ++kk)
      for (std::int64_t j = 0; j < shape_.n; ++j)
        b_rows_[static_cast<std::size_t>(j * shape_.k + kk)] = b[kk * shape_.n + j];
    y_.resize(static_cast<std::size_t>(shape_.m * shape_.n));
    // One row reads B once either way, the GEMV in half the bytes: always it (and so always
    // checked where it runs). Up to kGemvRows rows, whichever is faster here.
    gemv_ = shape_.m == 1 || cpu::gemv_is_faster([&] { run_gemv(); }, [&] { matmul_.execute(); });
  }
};

}  // namespace

std::unique_ptr<Instance> create_gemm_cpu(const Problem& problem, std::uint64_t seed) {
  return std::make_unique<GemmCpu>(problem, seed);
}

namespace {
const RegisterImplementation kGemmCpu("gemm", "cpu", [](const Problem& p, const SetupContext& setup) {
  return create_gemm_cpu(p, setup.seed);
});
}  // namespace

}  // namespace rooftop::gemm
