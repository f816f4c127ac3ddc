#include "devices/backend_traits.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/errors.hpp"

namespace rooftop {
namespace {
// name, gpu, rooftop_gpu_kernels, nvidia_ptx, cudnn_attention
const BackendTraits kTraits[] = {
    {"cpu", false, false, false, false},
    {"cuda", true, true, true, true},
    {"hip", true, true, false, false},  // the same kernel sources through hipcc; no PTX, no cuDNN
};
}  // namespace

const BackendTraits& backend_traits(std::string_view backend) {
  for (const auto& t : kTraits)
    if (t.name == backend) return t;
  std::vector<std::string> known;
  for (const auto& t : kTraits) known.push_back(t.name);
  throw InputError(fmt::format("unknown backend '{}': rooftop knows {}", backend, fmt::join(known, ", ")));
}

std::vector<std::string> backends_with(bool BackendTraits::*has) {
  std::vector<std::string> names;
  for (const auto& t : kTraits)
    if (t.*has) names.push_back(t.name);
  return names;
}

}  // namespace rooftop
