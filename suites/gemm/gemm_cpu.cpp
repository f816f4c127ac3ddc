#include "suites/gemm/gemm_cpu.hpp"

#include "devices/cpu/onednn_matmul.hpp"
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
      : dtype_(p.dtype), shape_(shape_of(p)), seed_(seed), matmul_(dtype_, shape_.m, shape_.n, shape_.k) {
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
  }

  std::string implementation() const override { return matmul_.implementation(); }

  Correctness check() override {
    poison_output(dtype_, matmul_.c(), shape_.m * shape_.n);
    matmul_.execute();
    return check_gemm({dtype_, shape_, matmul_.a(), matmul_.b(), matmul_.c()}, seed_ + 2);
  }

  void run() override { matmul_.execute(); }

 private:
  Dtype dtype_;
  GemmShape shape_;
  std::uint64_t seed_;
  cpu::OnednnMatmul matmul_;
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
