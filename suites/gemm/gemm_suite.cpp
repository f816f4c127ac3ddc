#include "suites/gemm/gemm_suite.hpp"

#include "harness/errors.hpp"
#include "harness/registry.hpp"
#include "suites/gemm/gemm_cpu.hpp"
#if defined(ROOFTOP_HAVE_CUDA)
#include "suites/gemm/gemm_cuda.hpp"
#endif
#include "suites/gemm/gemm_problem.hpp"

namespace rooftop::gemm {

void register_gemm_suite() {
  Family f;
  f.name = "gemm";
  f.description = "Dense matrix multiply C = A x B: a square sweep and Llama-3-8B projection shapes";
  f.backends = {"cpu"};
#if defined(ROOFTOP_HAVE_CUDA)
  f.backends.push_back("cuda");
#endif
  f.dtypes = {"fp32", "tf32", "bf16", "fp16", "fp8", "int8"};  // the CPU runs fp32, bf16, int8
  f.shape_syntax = "MxNxK";
  f.sweep = gemm_sweep;
  f.make_problem = [](std::string_view shape, std::string_view dtype, std::string_view backend) {
    return make_gemm_problem(parse_gemm_shape(shape), parse_dtype(dtype), backend, "user");
  };
  f.create = [](const Problem& p, std::uint64_t seed) -> std::unique_ptr<Instance> {
    if (p.backend == "cpu") return create_gemm_cpu(p, seed);
#if defined(ROOFTOP_HAVE_CUDA)
    if (p.backend == "cuda") return create_gemm_cuda(p, seed);
#endif
    throw PointSkipped("gemm has no '" + p.backend + "' implementation in this build");
  };
  register_family(std::move(f));
}

}  // namespace rooftop::gemm
