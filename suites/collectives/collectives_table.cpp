#include "suites/collectives/collective.hpp"

namespace rooftop::collectives {

std::span<const Collective* const> all_collectives() {
  static const Collective* const table[] = {&kAllReduce, &kAllGather, &kReduceScatter, &kAlltoall,
                                            &kBroadcast, &kReduce,    &kSendRecv};
  return table;
}

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
  for (const auto* c : all_collectives())
    if (c->name == name) return c;
  return nullptr;
}

}  // namespace rooftop::collectives
