// broadcast: rank 0's buffer reaches every rank.
#include "suites/collectives/collective.hpp"

namespace rooftop::collectives {
namespace {

Counts counts(std::size_t size, std::size_t elem, int) { return {size / elem, size / elem, size / elem}; }
double bus_factor(int) { return 1.0; }
double send_value(int rank, std::size_t i, const Counts&, int) { return pattern(rank, i); }
std::size_t in_place_offset(int, const Counts&) { return 0; }
bool expected(int, std::size_t i, const Counts&, int, double& v) {
  v = pattern(0, i);
  return true;
}
void run(Transport& t, int local, const void* send, void* recv, const Counts& c, Dtype dtype) {
  t.broadcast(local, send, recv, c.call, dtype, 0);
}

}  // namespace

const Collective kBroadcast{"broadcast", false, true, counts, bus_factor, send_value, in_place_offset, expected, run};

}  // namespace rooftop::collectives
