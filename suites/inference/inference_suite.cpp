// The inference family: a Llama-architecture decoder end to end, measured by scenario
// (prefill, decode, generate). Its implementations register themselves from
// inference_cpu.cpp (and the GPU's from its own file).
#include <fmt/format.h>

#include "harness/registry.hpp"
#include "harness/tier_sweep.hpp"
#include "suites/inference/inference_problem.hpp"
#include "suites/shape_data.hpp"

namespace rooftop::inference {
namespace {

Family make_inference_family() {
  Family f;
  f.name = "inference";
  f.description = "End-to-end Llama-style decoder: prefill (TTFT), decode (TPOT), generate (TTFT, inter-token "
                  "latency, tokens/s) and serve (requests at a rate, continuous batching: latency percentiles, goodput); models tiny, llama-3.2-1b, llama-3.1-8b, llama-3.1-70b or a config.json; tensor parallel over MPI ranks (:tpN)";
  f.measurement = Measurement::scenario;
  f.dtypes = {Dtype::fp32, Dtype::bf16, Dtype::fp8};  // the CPU runs fp32 and bf16
  f.shape_dtypes = {Dtype::bf16};
  f.shape_syntax = "MODEL:prefill:BxP | MODEL:decode:BxC | MODEL:generate:BxPxG | MODEL:serve:RATExN[:chat|:fixed=P/O|:file=PATH]"
                   "[:warmup=W][:window=S][:seed=S][:batch=B][:budget=T][:cache=POSITIONS]; then [:tpN] (tensor parallel over N "
                   "ranks: mpirun -np N); on a GPU then [:eager|:graph] (decode "
                   "steps from a CUDA graph unless eager) [:paged16|:paged32] [:fused] (MODEL: a shipped name or config.json)";
  f.prompt_shapes = "MODEL:prefill:BxP or MODEL:generate:BxPxG (P: the prompt's length)";
  f.shape_points = [](std::string_view shape, Dtype dtype, const PlanContext& c) {
    auto parsed = parse_inference_shape(shape);
    if (parsed.scenario == Scenario::serve) {
      if (!c.slo.empty()) parsed.slo = parse_slo(c.slo);
      parsed.sweep_rate = c.sweep_rate;
    }
    return std::vector<Problem>{
        make_inference_problem(parsed, dtype, c.backend, c.prompt, RankContext{c.ranks, c.available_memory_bytes})};
  };
  f.sweep = [](const PlanContext& c) {
    return sweep_from_shape_set(*family_named("inference"), embedded_shape_set("inference", tier_name(c.tier)),
                                fmt::format("suites/inference/shapes/{}.txt", tier_name(c.tier)), c);
  };
  return f;
}

const RegisterFamily kInference(make_inference_family);

}  // namespace
}  // namespace rooftop::inference
