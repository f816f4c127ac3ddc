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
// Queues `transport`'s collectives of local rank 0 on `stream` from now on (a decoder's own,
// so that a tensor-parallel all-reduce is ordered with its kernels and a CUDA graph can
// capture it; its wait() then waits for that stream). False where `transport` is not NCCL's.
bool queue_nccl_on(Transport& transport, void* stream);
}  // namespace rooftop
