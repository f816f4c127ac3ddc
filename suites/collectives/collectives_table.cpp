#include "suites/collectives/collective.hpp"

#include <vector>

namespace rooftop::collectives {

namespace {
// Filled before main by each collective's RegisterCollective; a function's static, so that
// it exists whichever file's registrar runs first.
std::vector<const Collective*>& registered() {
  static std::vector<const Collective*> all;
  return all;
}
}  // namespace

RegisterCollective::RegisterCollective(const Collective& collective) { registered().push_back(&collective); }

int max_exact_ranks(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp8: return 16 / 3;
    case Dtype::bf16: return 256 / 3;
    case Dtype::int8: return 127 / 3;
    case Dtype::fp16: return 2048 / 3;
    default: return (1 << 24) / 3;  // fp32
  }
}

const Collective* find_collective(std::string_view name) {
  for (const auto* c : registered())
    if (c->name == name) return c;
  return nullptr;
}

}  // namespace rooftop::collectives
