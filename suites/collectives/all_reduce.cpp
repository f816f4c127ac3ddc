// all_reduce: every rank ends with the sum of all ranks' buffers.
#include "suites/collectives/collective.hpp"

namespace rooftop::collectives {
namespace {

// A ring reduce-scatter then all-gather: each link carries 2(n-1)/n of the buffer.
double bus_factor(int n) { return 2.0 * (n - 1) / n; }
bool expected(int, std::size_t i, const Counts&, int n, double& v) {
  v = pattern_sum(n, i);
  return true;
}
void run(Transport& t, int local, const void* send, void* recv, const Counts& c, Dtype dtype) {
  t.all_reduce(local, send, recv, c.call, dtype);
}

}  // namespace

const Collective kAllReduce{"all_reduce", true, true, whole_message, bus_factor, same_start, expected, run};
const RegisterCollective kRegister(kAllReduce);

}  // namespace rooftop::collectives
