#include "harness/process_group.hpp"

#include <cstdlib>
#include <unistd.h>

#include "harness/errors.hpp"
#include "devices/ranks/local_ranks.hpp"

namespace rooftop {

#if defined(ROOFTOP_HAVE_MPI)
std::unique_ptr<ProcessGroup> make_mpi_process_group();  // mpi_process_group.cpp
#endif

namespace {

class SingleProcess final : public ProcessGroup {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string name() const override { return "single process"; }
  double max(double v) override { return v; }
  bool all(bool v) override { return v; }
  std::vector<std::string> gather(const std::string& mine) override { return {mine}; }
  void broadcast(void*, std::size_t) override {}
  void barrier() override {}
  [[noreturn]] void abort(int exit_code) override { std::_Exit(exit_code); }
};

}  // namespace

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

ProcessGroup& process_group() {
  static const std::unique_ptr<ProcessGroup> group = []() -> std::unique_ptr<ProcessGroup> {
    if (launched_as_local_rank()) return make_local_ranks_group();
    if (!launched_by_mpi()) return std::make_unique<SingleProcess>();
#if defined(ROOFTOP_HAVE_MPI)
    return make_mpi_process_group();
#else
    throw InputError("an MPI launcher started this rooftop, but it was built without MPI: install libopenmpi-dev "
                     "and rebuild, or run one process (without mpirun)");
#endif
  }();
  return *group;
}

}  // namespace rooftop
