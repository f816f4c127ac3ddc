// sendrecv: a ring exchange; rank r sends to r + 1 and receives from r - 1.
#include "suites/collectives/collective.hpp"

namespace rooftop::collectives {
namespace {

double bus_factor(int) { return 1.0; }
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
const Collective kSendRecv{"sendrecv", false, false, whole_message, bus_factor, same_start, expected, run};
const RegisterCollective kRegister(kSendRecv);

}  // namespace rooftop::collectives
