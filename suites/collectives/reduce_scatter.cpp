// reduce_scatter: rank r ends with chunk r of the sum of all ranks' buffers.
#include "suites/collectives/collective.hpp"

namespace rooftop::collectives {
namespace {

// size is the buffer each rank sends: n chunks of size / n.
Counts counts(std::size_t size, std::size_t elem, int n) {
  const std::size_t chunk = size / elem / n;
  return {chunk * n, chunk, chunk};
}
double bus_factor(int n) { return static_cast<double>(n - 1) / n; }
// In place, the result lands on the rank's own chunk of its send buffer.
std::size_t in_place_offset(int rank, const Counts& c) { return rank * c.recv; }
bool expected(int rank, std::size_t i, const Counts& c, int n, double& v) {
  v = pattern_sum(n, rank * c.recv + i);
  return true;
}
void run(Transport& t, int local, const void* send, void* recv, const Counts& c, Dtype dtype) {
  t.reduce_scatter(local, send, recv, c.call, dtype);
}

}  // namespace

const Collective kReduceScatter{"reduce_scatter", true, true, counts, bus_factor, in_place_offset, expected, run};
const RegisterCollective kRegister(kReduceScatter);

}  // namespace rooftop::collectives
