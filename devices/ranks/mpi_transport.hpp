#pragma once
// CPU ranks through MPI (Open MPI): one process a rank, buffers in host memory. Built
// where MPI is found.
#include <memory>

#include "harness/process_group.hpp"
#include "harness/transport.hpp"

namespace rooftop {
std::unique_ptr<Transport> make_mpi_transport(ProcessGroup& world);
}  // namespace rooftop
