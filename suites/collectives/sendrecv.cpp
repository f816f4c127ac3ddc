// sendrecv: a ring exchange; rank r sends to r + 1 and receives from r - 1.
#include "suites/collectives/collective.hpp"

namespace rooftop::collectives {
namespace {

Counts counts(std::size_t size, std::size_t elem, int) { return {size / elem, size / elem, size / elem}; }
double bus_factor(int) { return 1.0; }
double send_value(int rank, std::size_t i, const Counts&, int) { return pattern(rank, i); }
std::size_t in_place_offset(int, const Counts&) { return 0; }
bool expected(int rank, std::size_t i, const Counts&, int n, double& v) {
  v = pattern((rank + n - 1) % n, i);
  return true;
}
void run(Transport& t, int local, const void* send, void* recv, const Counts& c, Dtype dtype) {
  const int r = t.rank_of(local), n = t.ranks();
  t.send_recv(local, send, (r + 1) % n, recv, (r + n - 1) % n, c.call, dtype);
}

}  // namespace

// Out of place only: the buffer sent is not the one received.
const Collective kSendRecv{"sendrecv", false, false, counts, bus_factor, send_value, in_place_offset, expected, run};

}  // namespace rooftop::collectives
