#pragma once
#include <memory>

#include "harness/family.hpp"

namespace rooftop::collectives {

// A collective point on the run's transport (setup.transport: MPI, NCCL or one local rank);
// throws PointSkipped where its size cannot be split over the ranks.
std::unique_ptr<Instance> create_collective(const Problem& problem, const SetupContext& setup);

}  // namespace rooftop::collectives
