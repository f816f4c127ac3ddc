#pragma once
// The processes of a run: MPI's world when an MPI launcher (mpirun, srun) started this
// process, the ranks of `rooftop run --ranks N` (local_ranks.hpp), else this process alone. Collectives use it to agree (iteration counts, the
// slowest rank's time, a hang) and to gather where each rank runs.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace rooftop {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string name() const = 0;  // "Open MPI v4.1.4", "single process"
  virtual double max(double value) = 0;
  virtual bool all(bool value) = 0;
  virtual std::vector<std::string> gather(const std::string& mine) = 0;  // every process gets all
  virtual void broadcast(void* data, std::size_t bytes) = 0;            // from process 0
  virtual void barrier() = 0;
  [[noreturn]] virtual void abort(int exit_code) = 0;
};

// True when an MPI launcher started this process (its environment says so).
bool launched_by_mpi();
// MPI's world if launched_by_mpi() (throws InputError when this build has no MPI), else one
// process. Initialises MPI on first use; finalises it at exit.
ProcessGroup& process_group();

}  // namespace rooftop
