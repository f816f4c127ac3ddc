// The GEMM family: its descriptor and tier sweeps. Its implementations register themselves
// from gemm_cpu.cpp (oneDNN) and gemm_cuda.cpp (cuBLASLt).
#include <fmt/format.h>

#include "harness/registry.hpp"
#include "harness/tier_sweep.hpp"
#include "suites/gemm/gemm_problem.hpp"
#include "suites/shape_data.hpp"

namespace rooftop::gemm {
namespace {

Family make_gemm_family() {
  Family f;
  f.name = "gemm";
  f.description = "Dense matrix multiply C = A x B: a square sweep and Llama-3-8B projection shapes";
  f.dtypes = {Dtype::fp32, Dtype::tf32, Dtype::bf16, Dtype::fp16, Dtype::fp8, Dtype::int8};  // the CPU runs fp32, bf16, int8
  f.shape_syntax = "MxNxK";
  f.shape_points = [](std::string_view shape, Dtype dtype, const PlanContext& c) {
    return std::vector<Problem>{make_gemm_problem(parse_gemm_shape(shape), dtype, c.backend, "user")};
  };
  f.sweep = [](const PlanContext& c) {
    return sweep_from_shape_set(*family_named("gemm"), embedded_shape_set("gemm", tier_name(c.tier)),
                                fmt::format("suites/gemm/shapes/{}.txt", tier_name(c.tier)), c);
  };
  return f;
}

const RegisterFamily kGemm(make_gemm_family);

}  // namespace
}  // namespace rooftop::gemm
