// The inference family on the CPU: the scenarios (inference_instance.cpp) on the CPU
// decoder (cpu_decoder.cpp).
#include "harness/registry.hpp"
#include "suites/inference/cpu_decoder.hpp"
#include "suites/inference/inference_instance.hpp"

namespace rooftop::inference {
namespace {

const RegisterImplementation kInferenceCpu("inference", "cpu", [](const Problem& p, const SetupContext& setup) {
  return std::make_unique<InferenceInstance>(
      p, setup.seed, [](const DecoderWeights& w, std::int64_t batch, std::int64_t context, std::int64_t layers) {
        return std::make_unique<CpuDecoder>(w, batch, context, layers);
      });
});

}  // namespace
}  // namespace rooftop::inference
