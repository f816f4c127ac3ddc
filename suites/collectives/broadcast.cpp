// broadcast: rank 0's buffer reaches every rank.
#include "suites/collectives/collective.hpp"

namespace rooftop::collectives {
namespace {

double bus_factor(int) { return 1.0; }
bool expected(int, std::size_t i, const Counts&, int, double& v) {
  v = pattern(0, i);
  return true;
}
void run(Transport& t, int local, const void* send, void* recv, const Counts& c, Dtype dtype) {
  t.broadcast(local, send, recv, c.call, dtype, 0);
}

}  // namespace

const Collective kBroadcast{"broadcast", false, true, whole_message, bus_factor, same_start, expected, run};
const RegisterCollective kRegister(kBroadcast);

}  // namespace rooftop::collectives
