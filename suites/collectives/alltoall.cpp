// alltoall: chunk q of rank r's buffer goes to rank q, landing at chunk r there.
#include "suites/collectives/collective.hpp"

namespace rooftop::collectives {
namespace {

Counts counts(std::size_t size, std::size_t elem, int n) {
  const std::size_t chunk = size / elem / n;
  return {chunk * n, chunk * n, chunk};
}
double bus_factor(int n) { return static_cast<double>(n - 1) / n; }
bool expected(int rank, std::size_t i, const Counts& c, int, double& v) {
  const std::size_t from = i / c.call, j = i % c.call;
  v = pattern(static_cast<int>(from), rank * c.call + j);
  return true;
}
void run(Transport& t, int local, const void* send, void* recv, const Counts& c, Dtype dtype) {
  t.alltoall(local, send, recv, c.call, dtype);
}

}  // namespace

// Out of place only: NCCL's alltoall is grouped sends and receives, which cannot share a buffer.
const Collective kAlltoall{"alltoall", false, false, counts, bus_factor, same_start, expected, run};
const RegisterCollective kRegister(kAlltoall);

}  // namespace rooftop::collectives
