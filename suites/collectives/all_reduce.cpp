// all_reduce: every rank ends with the sum of all ranks' buffers.
#include "suites/collectives/collective.hpp"

namespace rooftop::collectives {
namespace {

Counts counts(std::size_t size, std::size_t elem, int) { return {size / elem, size / elem, size / elem}; }
// A ring reduce-scatter then all-gather: each link carries 2(n-1)/n of the buffer.
double bus_factor(int n) { return 2.0 * (n - 1) / n; }
double send_value(int rank, std::size_t i, const Counts&, int) { return pattern(rank, i); }
std::size_t in_place_offset(int, const Counts&) { return 0; }
bool expected(int, std::size_t i, const Counts&, int n, double& v) {
  v = 0;
  for (int q = 0; q < n; ++q) v += pattern(q, i);
  return true;
}
void run(Transport& t, int local, const void* send, void* recv, const Counts& c, Dtype dtype) {
  t.all_reduce(local, send, recv, c.call, dtype);
}

}  // namespace

const Collective kAllReduce{"all_reduce", true, true, counts, bus_factor, send_value, in_place_offset, expected, run};

}  // namespace rooftop::collectives
