// all_gather: every rank ends with all ranks' buffers, in rank order.
#include "suites/collectives/collective.hpp"

namespace rooftop::collectives {
namespace {

// size is the gathered buffer: n chunks of size / n.
Counts counts(std::size_t size, std::size_t elem, int n) {
  const std::size_t chunk = size / elem / n;
  return {chunk, chunk * n, chunk};
}
double bus_factor(int n) { return static_cast<double>(n - 1) / n; }
// In place, a rank's own chunk sits at its slot of the gathered buffer.
std::size_t in_place_offset(int rank, const Counts& c) { return rank * c.send; }
bool expected(int, std::size_t i, const Counts& c, int, double& v) {
  v = pattern(static_cast<int>(i / c.send), i % c.send);
  return true;
}
void run(Transport& t, int local, const void* send, void* recv, const Counts& c, Dtype dtype) {
  t.all_gather(local, send, recv, c.call, dtype);
}

}  // namespace

const Collective kAllGather{"all_gather", false, true, counts, bus_factor, in_place_offset, expected, run};
const RegisterCollective kRegister(kAllGather);

}  // namespace rooftop::collectives
