#pragma once
// CPU ranks through MPI (Open MPI): one process a rank, buffers in host memory. Built
// where MPI is found.
#include <memory>

#include "suites/collectives/process_group.hpp"
#include "suites/collectives/transport.hpp"

namespace rooftop::collectives {
std::unique_ptr<Transport> make_mpi_transport(ProcessGroup& world);
}  // namespace rooftop::collectives
