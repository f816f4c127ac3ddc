#include "devices/ranks/mpi_transport.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <cstring>

#include "harness/bf16.hpp"
#include "harness/errors.hpp"
#include "harness/fp16.hpp"
#include "devices/ranks/host_transports.hpp"

namespace rooftop {
namespace {

// MPI has no bf16 or fp16: their sums are user operations over 16-bit words.
void sum_bf16(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<const std::uint16_t*>(in);
  auto* b = static_cast<std::uint16_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = float_to_bf16(bf16_to_float(a[i]) + bf16_to_float(b[i]));
}
void sum_fp16(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<const std::uint16_t*>(in);
  auto* b = static_cast<std::uint16_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = float_to_half(half_to_float(a[i]) + half_to_float(b[i]));
}

int to_int(std::size_t count) {
  if (count > static_cast<std::size_t>(INT32_MAX))
    throw PointSkipped(fmt::format("{} elements exceed MPI's int count", count));
  return static_cast<int>(count);
}

class MpiTransport final : public HostMemoryTransport {
 public:
  explicit MpiTransport(ProcessGroup& world) : world_(world) {
    MPI_Op_create(sum_bf16, 1, &bf16_sum_);
    MPI_Op_create(sum_fp16, 1, &fp16_sum_);
  }
  std::string name() const override { return "MPI (" + world_.name() + ")"; }
  int ranks() const override { return world_.size(); }
  int local_ranks() const override { return 1; }
  int rank_of(int) const override { return world_.rank(); }
  bool writes_results() const override { return world_.rank() == 0; }
  std::vector<std::string> placement() override {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return world_.gather(fmt::format("{}:cpu (pid {})", host, getpid()));
  }

  void all_reduce(int, const void* send, void* recv, std::size_t count, Dtype d) override {
    MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv, to_int(count), type(d), sum(d), MPI_COMM_WORLD);
  }
  void all_gather(int, const void* send, void* recv, std::size_t count, Dtype d) override {
    const bool in_place = send == static_cast<char*>(recv) + world_.rank() * count * input_size(d);
    MPI_Allgather(in_place ? MPI_IN_PLACE : send, to_int(count), type(d), recv, to_int(count), type(d), MPI_COMM_WORLD);
  }
  void reduce_scatter(int, const void* send, void* recv, std::size_t count, Dtype d) override {
    const std::size_t chunk = count * input_size(d);
    if (recv == static_cast<const char*>(send) + world_.rank() * chunk) {
      // MPI's in-place form leaves the result at the start; NCCL's, at the rank's chunk.
      MPI_Reduce_scatter_block(MPI_IN_PLACE, const_cast<void*>(send), to_int(count), type(d), sum(d), MPI_COMM_WORLD);
      if (recv != send) std::memmove(recv, send, chunk);
    } else {
      MPI_Reduce_scatter_block(send, recv, to_int(count), type(d), sum(d), MPI_COMM_WORLD);
    }
  }
  void alltoall(int, const void* send, void* recv, std::size_t count, Dtype d) override {
    MPI_Alltoall(send, to_int(count), type(d), recv, to_int(count), type(d), MPI_COMM_WORLD);
  }
  void broadcast(int, const void* send, void* recv, std::size_t count, Dtype d, int root) override {
    if (world_.rank() == root && send != recv) std::memcpy(recv, send, count * input_size(d));
    MPI_Bcast(recv, to_int(count), type(d), root, MPI_COMM_WORLD);
  }
  void reduce(int, const void* send, void* recv, std::size_t count, Dtype d, int root) override {
    const bool in_place = send == recv && world_.rank() == root;
    MPI_Reduce(in_place ? MPI_IN_PLACE : send, recv, to_int(count), type(d), sum(d), root, MPI_COMM_WORLD);
  }
  void send_recv(int, const void* send, int to, void* recv, int from, std::size_t count, Dtype d) override {
    MPI_Sendrecv(send, to_int(count), type(d), to, 0, recv, to_int(count), type(d), from, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  }
  void wait(double) override {}  // every call above returns complete

  double max_over_processes(double v) override { return world_.max(v); }
  bool all_processes(bool v) override { return world_.all(v); }
  std::vector<std::string> gather_strings(const std::string& mine) override { return world_.gather(mine); }
  void barrier() override { world_.barrier(); }
  [[noreturn]] void abort(int exit_code) override {
    world_.abort(exit_code);
    std::_Exit(exit_code);  // not reached
  }

 private:
  static MPI_Datatype type(Dtype d) {
    switch (d) {
      case Dtype::fp32: return MPI_FLOAT;
      case Dtype::bf16:
      case Dtype::fp16: return MPI_UINT16_T;
      case Dtype::int8: return MPI_INT8_T;
      default: throw PointSkipped(fmt::format("MPI collectives take fp32, bf16, fp16 or int8, not {} (fp8 runs on NCCL)", dtype_name(d)));
    }
  }
  MPI_Op sum(Dtype d) const { return d == Dtype::bf16 ? bf16_sum_ : d == Dtype::fp16 ? fp16_sum_ : MPI_SUM; }

  ProcessGroup& world_;
  MPI_Op bf16_sum_ = MPI_OP_NULL, fp16_sum_ = MPI_OP_NULL;
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport(ProcessGroup& world) { return std::make_unique<MpiTransport>(world); }

}  // namespace rooftop
