// The inference family on CUDA: the scenarios (inference_instance.cpp) on the GPU decoder
// (cuda_decoder.cpp).
#include <memory>
#include <stdexcept>

#include "harness/registry.hpp"
#include "suites/inference/cuda_decoder.hpp"
#include "suites/inference/cuda_serve_decoder.hpp"
#include "suites/inference/inference_instance.hpp"
#include "suites/inference/serve_instance.hpp"

namespace rooftop::inference {
namespace {

const RegisterImplementation kInferenceCuda("inference", "cuda", [](const Problem& p, const SetupContext& setup) {
  const auto shape = shape_of(p);
  if (shape.scenario == Scenario::serve)  // the serve scenario's own paged decoder (cuda_serve_decoder.cpp)
    return std::unique_ptr<ScenarioInstance>(std::make_unique<ServeInstance>(
        p, setup.seed,
        [](const DecoderWeights& w, std::int64_t blocks, std::int64_t page, std::int64_t context, std::int64_t layers) {
          return std::unique_ptr<PagedDecoder>(std::make_unique<CudaServeDecoder>(w, blocks, page, context, layers));
        }));
  const Launch launch = shape.launch == "graph" ? Launch::graph : Launch::eager;
  // Tensor parallel: this process is one rank (one GPU) of the run's NCCL transport, every
  // decoder of the point (the timed one, the check's) a rank of the same group.
  std::shared_ptr<TensorParallelGroup> group;
  if (shape.tp > 1) {
    if (!setup.transport || setup.transport->ranks() != shape.tp)
      throw std::logic_error(p.name() + ": a tensor-parallel point needs the run's transport of tp ranks");
    group = std::make_shared<TensorParallelGroup>(*setup.transport, setup.watchdog, setup.comm_timeout_s);
  }
  return std::unique_ptr<ScenarioInstance>(std::make_unique<InferenceInstance>(
      p, setup.seed, [launch, page = shape.page, fused = shape.fused, group](const DecoderWeights& w, std::int64_t batch,
                                                                             std::int64_t context, std::int64_t layers) {
        return std::make_unique<CudaDecoder>(w, batch, context, layers, launch, page, fused, group);
      },
      group ? group->rank() : 0));
});

}  // namespace
}  // namespace rooftop::inference
