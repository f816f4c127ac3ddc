#pragma once
// GPU ranks through NCCL: under an MPI launcher one process a GPU (the unique id travels
// over MPI), otherwise this process drives every visible GPU.
#include <memory>

#include "suites/collectives/process_group.hpp"
#include "suites/collectives/transport.hpp"

namespace rooftop::collectives {
// Throws DeviceUnavailable without a GPU or NCCL; InputError when a node has more ranks
// than GPUs.
std::unique_ptr<Transport> make_nccl_transport(ProcessGroup& world);
}  // namespace rooftop::collectives
