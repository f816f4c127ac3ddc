#include "suites/attention/attention_suite.hpp"

#include "harness/errors.hpp"
#include "harness/registry.hpp"
#include "suites/attention/attention_cpu.hpp"
#if defined(ROOFTOP_HAVE_CUDA)
#include "suites/attention/attention_cuda.hpp"
#include "suites/attention/attention_cuda_prefill.cuh"
#endif
#include "suites/attention/attention_problem.hpp"

namespace rooftop::attention {

void register_attention_suite() {
  Family f;
  f.name = "attention";
  f.description = "Scaled dot-product attention: prefill (causal or not, MHA/GQA) and decode (contiguous or paged KV cache)";
  f.backends = {"cpu"};
#if defined(ROOFTOP_HAVE_CUDA)
  f.backends.push_back("cuda");
#endif
  f.dtypes = {"fp32", "bf16", "fp16"};
  f.shape_syntax = "prefill:BxHqxHkvxSxD[:causal][:onednn|:cublaslt][:m128n64w4s2] | decode:BxHqxHkvxSkvxD[:paged16|:paged32]";
  f.sweep = [](Tier tier, std::string_view backend) {
    std::vector<std::string> tiles;
#if defined(ROOFTOP_HAVE_CUDA)
    if (backend == "cuda")
      for (const auto& c : prefill_configs()) tiles.push_back(config_name(c));
#endif
    return attention_sweep(tier, backend, tiles);
  };
  f.make_problem = [](std::string_view shape, std::string_view dtype, std::string_view backend) {
    return make_attention_problem(parse_attention_shape(shape), parse_dtype(dtype), backend);
  };
  f.create = [](const Problem& p, std::uint64_t seed) -> std::unique_ptr<Instance> {
    if (p.backend == "cpu") return create_attention_cpu(p, seed);
#if defined(ROOFTOP_HAVE_CUDA)
    if (p.backend == "cuda") return create_attention_cuda(p, seed);
#endif
    throw PointSkipped("attention has no '" + p.backend + "' implementation in this build yet");
  };
  register_family(std::move(f));
}

}  // namespace rooftop::attention
