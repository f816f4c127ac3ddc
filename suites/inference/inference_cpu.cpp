// The inference family on the CPU: the scenarios (inference_instance.cpp) on the CPU
// decoder (cpu_decoder.cpp).
#include "harness/errors.hpp"
#include "harness/registry.hpp"
#include "suites/inference/cpu_decoder.hpp"
#include "suites/inference/inference_instance.hpp"
#include "suites/inference/serve_instance.hpp"

namespace rooftop::inference {
namespace {

const RegisterImplementation kInferenceCpu("inference", "cpu", [](const Problem& p, const SetupContext& setup) {
  // Said before the weights are made: a model's worth of quantising for nothing otherwise.
  if (p.dtype != Dtype::fp32 && p.dtype != Dtype::bf16)
    throw PointSkipped("the CPU decoder runs fp32 and bf16 (fp8 weights are the CUDA backend's)");
  const DecoderFactory uniform = [](const DecoderWeights& w, std::int64_t batch, std::int64_t context, std::int64_t layers) {
    return std::make_unique<CpuDecoder>(w, batch, context, layers);
  };
  if (shape_of(p).scenario == Scenario::serve)
    return std::unique_ptr<ScenarioInstance>(std::make_unique<ServeInstance>(
        p, setup.seed,
        [](const DecoderWeights& w, std::int64_t blocks, std::int64_t page, std::int64_t context, std::int64_t layers) {
          return std::unique_ptr<PagedDecoder>(std::make_unique<CpuDecoder>(w, CpuDecoder::PagedCache{blocks, page}, context, layers));
        }));
  return std::unique_ptr<ScenarioInstance>(std::make_unique<InferenceInstance>(p, setup.seed, uniform));
});

}  // namespace
}  // namespace rooftop::inference
