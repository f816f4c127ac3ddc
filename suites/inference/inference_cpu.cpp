// The inference family on the CPU: the scenarios (inference_instance.cpp) on the CPU
// decoder (cpu_decoder.cpp).
#include "harness/errors.hpp"
#include "harness/registry.hpp"

#include <memory>
#include <stdexcept>
#include "suites/inference/cpu_decoder.hpp"
#include "suites/inference/inference_instance.hpp"
#include "suites/inference/serve_instance.hpp"

namespace rooftop::inference {
namespace {

const RegisterImplementation kInferenceCpu("inference", "cpu", [](const Problem& p, const SetupContext& setup) {
  // Said before the weights are made: a model's worth of quantising for nothing otherwise.
  if (p.dtype != Dtype::fp32 && p.dtype != Dtype::bf16)
    throw PointSkipped("the CPU decoder runs fp32 and bf16 (fp8 weights are the CUDA backend's)");
  // Tensor parallel: this process is one rank of the run's transport (MPI), every decoder of
  // the point (the timed one, the check's) a rank of the same group.
  std::shared_ptr<TensorParallelGroup> group;
  if (const int tp = shape_of(p).tp; tp > 1) {
    if (!setup.transport || setup.transport->ranks() != tp)
      throw std::logic_error(p.name() + ": a tensor-parallel point needs the run's transport of tp ranks");
    group = std::make_shared<TensorParallelGroup>(*setup.transport, setup.watchdog, setup.comm_timeout_s);
  }
  const DecoderFactory uniform = [group](const DecoderWeights& w, std::int64_t batch, std::int64_t context, std::int64_t layers) {
    return std::make_unique<CpuDecoder>(w, batch, context, layers, group);
  };
  if (shape_of(p).scenario == Scenario::serve)
    return std::unique_ptr<ScenarioInstance>(std::make_unique<ServeInstance>(
        p, setup.seed,
        [](const DecoderWeights& w, std::int64_t blocks, std::int64_t page, std::int64_t context, std::int64_t layers) {
          return std::unique_ptr<PagedDecoder>(std::make_unique<CpuDecoder>(w, CpuDecoder::PagedCache{blocks, page}, context, layers));
        }));
  return std::unique_ptr<ScenarioInstance>(std::make_unique<InferenceInstance>(p, setup.seed, uniform, group ? group->rank() : 0));
});

}  // namespace
}  // namespace rooftop::inference
