#pragma once
// GPU ranks through NCCL: under an MPI launcher one process a GPU (the unique id travels
// over MPI), otherwise this process drives every visible GPU.
#include <memory>

#include "harness/process_group.hpp"
#include "harness/transport.hpp"

namespace rooftop {
// Throws DeviceUnavailable without a GPU or NCCL; InputError when a node has more ranks
// than GPUs.
std::unique_ptr<Transport> make_nccl_transport(ProcessGroup& world);
}  // namespace rooftop
