#include "suites/gemm/gemm_cuda.hpp"

#include "harness/registry.hpp"
#include "devices/cuda/vendor_matmul.hpp"
#include "devices/cuda/gpu_kernels.hpp"
#include "devices/cuda/vendors/gpu.hpp"
#include "harness/dtype_facts.hpp"
#include "suites/gemm/gemm_cuda_reference.hpp"
#include "suites/gemm/gemm_problem.hpp"
#include "suites/gemm/gemm_reference.hpp"

namespace rooftop::gemm {
namespace {

class GemmCuda final : public Instance {
 public:
  GemmCuda(const Problem& p, std::uint64_t seed)
      : dtype_(p.dtype), shape_(shape_of(p)), seed_(seed), matmul_(dtype_, shape_.m, shape_.n, shape_.k) {
    // Fresh random inputs from the point's seed, drawn on the device; never zeros.
    const FillRange range = fill_range(dtype_);
    gpu::fill_uniform(dtype_, matmul_.a(), static_cast<std::size_t>(shape_.m * shape_.k), seed, range.lo, range.hi);
    gpu::fill_uniform(dtype_, matmul_.b(), static_cast<std::size_t>(shape_.n * shape_.k), seed + 1, range.lo, range.hi);
  }

  std::string implementation() const override { return matmul_.algorithm(); }
  std::string implementation_label() const override { return matmul_.algorithm_label(); }

  Correctness check() override {
    const auto elements = static_cast<std::size_t>(shape_.m * shape_.n);
    const auto out = gpu::output_type(dtype_);
    gpu::poison(out, matmul_.d(), elements);
    matmul_.execute();
    const auto unwritten = gpu::count_poisoned(out, matmul_.d(), elements);
    const auto refs = reference_on_gpu(dtype_, shape_, matmul_.a(), matmul_.b(), matmul_.d(), seed_ + 2);
    return judge_elements(dtype_, shape_.k, refs, elements, unwritten);
  }

  void run() override { matmul_.execute(); }

 private:
  Dtype dtype_;
  GemmShape shape_;
  std::uint64_t seed_;
  gpu::VendorMatmul matmul_;
};

}  // namespace

std::unique_ptr<Instance> create_gemm_cuda(const Problem& problem, std::uint64_t seed) {
  return std::make_unique<GemmCuda>(problem, seed);
}

namespace {
// "cuda", or "hip" in a HIP build of the same source.
const RegisterImplementation kGemmCuda("gemm", ROOFTOP_GPU_BACKEND, [](const Problem& p, const SetupContext& setup) {
  return create_gemm_cuda(p, setup.seed);
});
}  // namespace

}  // namespace rooftop::gemm
