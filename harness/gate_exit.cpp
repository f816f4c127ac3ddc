#include "harness/gate_exit.hpp"

#include <algorithm>

#include "harness/exit_codes.hpp"

namespace rooftop {

GateExit gate_exit(const GateReport& r) {
  GateExit e;
  e.failures = r.count(Verdict::fail);
  e.compared = r.count(Verdict::pass) + r.count(Verdict::improved) + r.count(Verdict::unresolved);
  e.unresolved_above_tau = r.count_unresolved_above_tau();
  e.suite_shift_unresolved = r.suite_shift.verdict == Verdict::unresolved;
  e.suite_shift_failed = r.suite_shift.verdict == Verdict::fail;
  e.nothing_decided = e.compared > 0 && r.count(Verdict::pass) + r.count(Verdict::improved) == 0;
  e.nothing_tested = e.compared > 0 && std::none_of(r.comparisons.begin(), r.comparisons.end(),
                                                    [](const Comparison& c) { return c.tested; });
  if (e.failures || e.suite_shift_failed) e.code = kExitFailure;
  // Nothing in common is not a pass: a baseline of another suite, tier or shapes, or an
  // empty run, compared no benchmark at all.
  else if (e.compared == 0) e.code = kExitUsage;
  // Never an all-clear over a slowdown the suite's level could not confirm, a suite-wide
  // shift it cannot attribute, or a comparison that tested nothing. An UNRESOLVED that was
  // tested and may lie below tau is no failure: unchanged code on a noisy machine must pass.
  else if (e.unresolved_above_tau > 0 || e.suite_shift_unresolved || e.nothing_tested) e.code = kExitUnresolved;
  else e.code = kExitOk;
  return e;
}

}  // namespace rooftop
