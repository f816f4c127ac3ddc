// The attention family: its descriptor and tier sweeps. Its implementations register
// themselves from attention_cpu.cpp (fused and oneDNN) and attention_cuda.cpp.
#include <fmt/format.h>

#include "devices/backend_traits.hpp"
#include "harness/registry.hpp"
#include "harness/tier_sweep.hpp"
#include "suites/attention/attention_cpu.hpp"
#include "suites/attention/attention_problem.hpp"
#include "suites/shape_data.hpp"

namespace rooftop::attention {
namespace {

Family make_attention_family() {
  Family f;
  f.name = "attention";
  f.description = "Scaled dot-product attention: prefill (causal or not, MHA/GQA) and decode (contiguous or paged KV cache)";
  f.dtypes = {Dtype::fp32, Dtype::bf16, Dtype::fp16};
  f.shape_syntax = "prefill:BxHqxHkvxSxD[:causal][:onednn|:cublaslt|:cudnn][:m128n64w4s2 GPU|:m128n256 CPU tile] | "
                   "decode:BxHqxHkvxSkvxD[:paged16|:paged32][:cudnn|:s32]";
  f.shape_points = [](std::string_view shape, Dtype dtype, const PlanContext& c) {
    return std::vector<Problem>{make_attention_problem(parse_attention_shape(shape), dtype, c.backend)};
  };
  f.tile_candidates = [](const Problem& p) {
    // The CPU prefill's oneDNN tiles, the GPU decode's split counts and the CUDA prefill's
    // compiled kernel tiles (a HIP build has no prefill kernel to tune).
    const auto s = shape_of(p);
    const auto& traits = backend_traits(p.backend);
    if (!traits.gpu) return cpu_tile_candidates(s, p.dtype);
    if (traits.rooftop_gpu_kernels && s.decode) return decode_split_candidates(s);
    if (traits.nvidia_ptx) return cuda_prefill_tile_candidates(s, p.dtype);
    return std::vector<std::string>{};
  };
  f.sweep = [](const PlanContext& c) {
    return sweep_from_shape_set(*family_named("attention"), embedded_shape_set("attention", tier_name(c.tier)),
                                fmt::format("suites/attention/shapes/{}.txt", tier_name(c.tier)), c);
  };
  return f;
}

const RegisterFamily kAttention(make_attention_family);

}  // namespace
}  // namespace rooftop::attention
