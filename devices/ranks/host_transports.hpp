#pragma once
// The transports whose buffers are host memory, the cpu backend's: MPI's CPU ranks
// (mpi_transport.cpp) and one local rank without a launcher.
#include <memory>
#include <string_view>

#include "harness/transport.hpp"

namespace rooftop {

// Buffers in host memory, 64-byte aligned; uploads and downloads are copies.
class HostMemoryTransport : public Transport {
 public:
  void* allocate(int local, std::size_t bytes) override;
  void release(int local, void* p) override;
  void upload(int local, void* dst, const void* host, std::size_t bytes) override;
  void download(int local, void* host, const void* src, std::size_t bytes) override;
};

// One CPU rank in this process: what `--backend cpu` measures without an MPI launcher,
// where every collective is a copy within the rank.
class LocalTransport : public HostMemoryTransport {
 public:
  std::string name() const override { return "one local rank (no MPI launcher)"; }
  int ranks() const override { return 1; }
  int local_ranks() const override { return 1; }
  int rank_of(int) const override { return 0; }
  bool writes_results() const override { return true; }
  std::vector<std::string> placement() override;
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
  [[noreturn]] void abort(int exit_code) override;

 private:
  static void copy(const void* s, void* r, std::size_t n, Dtype d);
};

// The cpu backend's transport: MPI's world under an MPI launcher, else one local rank.
std::unique_ptr<Transport> make_host_transport();

}  // namespace rooftop
