#include "devices/ranks/host_transports.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "harness/errors.hpp"
#include "harness/process_group.hpp"
#if defined(ROOFTOP_HAVE_MPI)
#include "devices/ranks/mpi_transport.hpp"
#endif

namespace rooftop {

void* HostMemoryTransport::allocate(int, std::size_t bytes) {
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) throw PointSkipped(fmt::format("{} bytes of host memory are not available", bytes));
  return p;
}
void HostMemoryTransport::release(int, void* p) { std::free(p); }
void HostMemoryTransport::upload(int, void* dst, const void* host, std::size_t bytes) { std::memcpy(dst, host, bytes); }
void HostMemoryTransport::download(int, void* host, const void* src, std::size_t bytes) { std::memcpy(host, src, bytes); }

std::vector<std::string> LocalTransport::placement() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return {fmt::format("{}:cpu (pid {})", host, getpid())};
}
void LocalTransport::abort(int exit_code) { std::_Exit(exit_code); }
void LocalTransport::copy(const void* s, void* r, std::size_t n, Dtype d) {
  if (s != r) std::memmove(r, s, n * input_size(d));
}

std::unique_ptr<Transport> make_host_transport() {
  if (!launched_by_mpi()) return std::make_unique<LocalTransport>();
#if defined(ROOFTOP_HAVE_MPI)
  return make_mpi_transport(process_group());
#else
  process_group();  // throws: launched by MPI without MPI support
  return std::make_unique<LocalTransport>();
#endif
}

}  // namespace rooftop
