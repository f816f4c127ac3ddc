#include "suites/collectives/local_transport.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "harness/errors.hpp"
#include "suites/collectives/process_group.hpp"
#if defined(ROOFTOP_HAVE_MPI)
#include "devices/mpi/mpi_transport.hpp"
#endif
#if defined(ROOFTOP_HAVE_CUDA)
#include "devices/cuda/nccl_transport.hpp"
#endif

namespace rooftop::collectives {
namespace {

class LocalTransport final : public Transport {
 public:
  std::string name() const override { return "one local rank (no MPI launcher)"; }
  int ranks() const override { return 1; }
  int local_ranks() const override { return 1; }
  int rank_of(int) const override { return 0; }
  bool writes_results() const override { return true; }
  std::vector<std::string> placement() override {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return {fmt::format("{}:cpu (pid {})", host, getpid())};
  }
  void* allocate(int, std::size_t bytes) override {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) throw PointSkipped(fmt::format("{} bytes of host memory are not available", bytes));
    return p;
  }
  void release(int, void* p) override { std::free(p); }
  void upload(int, void* dst, const void* host, std::size_t bytes) override { std::memcpy(dst, host, bytes); }
  void download(int, void* host, const void* src, std::size_t bytes) override { std::memcpy(host, src, bytes); }
  void all_reduce(int, const void* s, void* r, std::size_t n, Dtype d) override { copy(s, r, n, d); }
  void all_gather(int, const void* s, void* r, std::size_t n, Dtype d) override { copy(s, r, n, d); }
  void reduce_scatter(int, const void* s, void* r, std::size_t n, Dtype d) override { copy(s, r, n, d); }
  void alltoall(int, const void* s, void* r, std::size_t n, Dtype d) override { copy(s, r, n, d); }
  void broadcast(int, const void* s, void* r, std::size_t n, Dtype d, int) override { copy(s, r, n, d); }
  void reduce(int, const void* s, void* r, std::size_t n, Dtype d, int) override { copy(s, r, n, d); }
  void send_recv(int, const void* s, int, void* r, int, std::size_t n, Dtype d) override { copy(s, r, n, d); }
  void wait(double) override {}
  double max_over_processes(double v) override { return v; }
  bool all_processes(bool v) override { return v; }
  std::vector<std::string> gather_strings(const std::string& mine) override { return {mine}; }
  void barrier() override {}
  [[noreturn]] void abort(int exit_code) override { std::_Exit(exit_code); }

 private:
  static void copy(const void* s, void* r, std::size_t n, Dtype d) {
    if (s != r) std::memmove(r, s, n * input_size(d));
  }
};

}  // namespace

std::unique_ptr<Transport> make_local_transport() { return std::make_unique<LocalTransport>(); }

std::unique_ptr<Transport> make_transport(std::string_view backend) {
  if (backend == "cuda") {
#if defined(ROOFTOP_HAVE_CUDA)
    return make_nccl_transport(process_group());
#else
    throw DeviceUnavailable("this rooftop was built without CUDA: NCCL collectives are not here");
#endif
  }
  if (backend != "cpu") throw InputError(fmt::format("collectives run on the cpu (MPI) and cuda (NCCL) backends, not {}", backend));
  if (!launched_by_mpi()) return make_local_transport();
#if defined(ROOFTOP_HAVE_MPI)
  return make_mpi_transport(process_group());
#else
  process_group();  // throws: launched by MPI without MPI support
  return make_local_transport();
#endif
}

}  // namespace rooftop::collectives
