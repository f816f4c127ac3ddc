#include "suites/collectives/collective.hpp"

namespace rooftop::collectives {

std::span<const Collective* const> all_collectives() {
  static const Collective* const table[] = {&kAllReduce, &kAllGather, &kReduceScatter, &kAlltoall,
                                            &kBroadcast, &kReduce,    &kSendRecv};
  return table;
}

const Collective* find_collective(std::string_view name) {
  for (const auto* c : all_collectives())
    if (c->name == name) return c;
  return nullptr;
}

}  // namespace rooftop::collectives
