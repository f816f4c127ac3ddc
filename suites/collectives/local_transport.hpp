#pragma once
// One CPU rank in one process: what `rooftop run --suite collectives --backend cpu` measures
// without an MPI launcher (every collective is then a copy within the rank).
#include <memory>

#include "suites/collectives/transport.hpp"

namespace rooftop::collectives {
std::unique_ptr<Transport> make_local_transport();
// The transport for a backend: MPI or one local rank for cpu, NCCL for cuda.
std::unique_ptr<Transport> make_transport(std::string_view backend);
}  // namespace rooftop::collectives
