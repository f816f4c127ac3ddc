#pragma once
// What a collective runs on: the ranks and their primitives. MPI (CPU ranks, one process
// each), NCCL (GPU ranks: one process per GPU under MPI, or one process driving every
// local GPU) and a single local rank implement it. Buffers live where the transport's data
// does (host memory for MPI, GPU memory for NCCL); the collectives' own files say which
// primitive they call, with which counts, as nccl-tests' files do.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/dtype.hpp"

namespace rooftop {

// A collective that did not finish in time: a rank died or hangs.
struct CommTimeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual std::string name() const = 0;  // "MPI (Open MPI v4.1.4)", "NCCL 2.27.7"
  virtual int ranks() const = 0;         // ranks in the communicator
  virtual int local_ranks() const = 0;   // ranks this process drives
  virtual int rank_of(int local) const = 0;
  virtual bool writes_results() const = 0;  // the process of rank 0
  // Where each local rank runs: "host:gpu0 (NVIDIA H200)", gathered across processes.
  virtual std::vector<std::string> placement() = 0;

  virtual void* allocate(int local, std::size_t bytes) = 0;
  virtual void release(int local, void* p) = 0;
  virtual void upload(int local, void* dst, const void* host, std::size_t bytes) = 0;
  virtual void download(int local, void* host, const void* src, std::size_t bytes) = 0;

  // Calls for all local ranks go between begin and end (NCCL groups them; MPI runs each
  // call as it comes, blocking).
  virtual void begin() {}
  virtual void end() {}
  virtual void all_reduce(int local, const void* send, void* recv, std::size_t count, Dtype dtype) = 0;
  virtual void all_gather(int local, const void* send, void* recv, std::size_t send_count, Dtype dtype) = 0;
  virtual void reduce_scatter(int local, const void* send, void* recv, std::size_t recv_count, Dtype dtype) = 0;
  virtual void alltoall(int local, const void* send, void* recv, std::size_t count_per_peer, Dtype dtype) = 0;
  virtual void broadcast(int local, const void* send, void* recv, std::size_t count, Dtype dtype, int root) = 0;
  virtual void reduce(int local, const void* send, void* recv, std::size_t count, Dtype dtype, int root) = 0;
  virtual void send_recv(int local, const void* send, int to, void* recv, int from, std::size_t count, Dtype dtype) = 0;
  // Until the local ranks' queued work is done; throws CommTimeout after `timeout_s`.
  virtual void wait(double timeout_s) = 0;

  // Across processes (a no-op with one process).
  virtual double max_over_processes(double value) = 0;
  virtual bool all_processes(bool value) = 0;
  virtual std::vector<std::string> gather_strings(const std::string& mine) = 0;
  virtual void barrier() = 0;
  // Ends every rank after a hang: the communicator cannot be trusted again.
  [[noreturn]] virtual void abort(int exit_code) = 0;
};

}  // namespace rooftop
