// MPI's world as the collectives' process group (built where MPI is found).
#include <fmt/format.h>
#include <mpi.h>

#include <cstdlib>
#include <memory>

#include "harness/process_group.hpp"

namespace rooftop {
namespace {

class MpiWorld final : public ProcessGroup {
 public:
  MpiWorld() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(version, &length);
    name_ = std::string(version, version + length);
    if (const auto cut = name_.find(','); cut != std::string::npos) name_.resize(cut);
  }
  ~MpiWorld() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return name_; }
  double max(double v) override {
    double out = v;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out;
  }
  bool all(bool v) override {
    int in = v ? 1 : 0, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return out != 0;
  }
  std::vector<std::string> gather(const std::string& mine) override {
    int length = static_cast<int>(mine.size());
    std::vector<int> lengths(size_), offsets(size_);
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int i = 0; i < size_; ++i) {
      offsets[i] = total;
      total += lengths[i];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (int i = 0; i < size_; ++i) out.push_back(all.substr(offsets[i], lengths[i]));
    return out;
  }
  void broadcast(void* data, std::size_t bytes) override {
    MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD);
  }
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  [[noreturn]] void abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);
  }

 private:
  int rank_ = 0, size_ = 1;
  std::string name_;
};

}  // namespace

std::unique_ptr<ProcessGroup> make_mpi_process_group() { return std::make_unique<MpiWorld>(); }

}  // namespace rooftop
