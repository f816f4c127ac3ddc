#pragma once
// The exit code a gate's verdicts give (`gate`, `compare`, `report --baseline`) and what
// decided it, without printing: one rule for the CLI's exit code and the reports' banners.
#include "harness/gate.hpp"

namespace rooftop {

struct GateExit {
  int code = 0;                  // kExitOk, kExitFailure, kExitUsage (nothing compared) or kExitUnresolved
  int failures = 0;              // FAIL
  int compared = 0;              // PASS + IMPROVED + UNRESOLVED
  int unresolved_above_tau = 0;  // UNRESOLVED whose own 95% interval lies wholly above tau
  bool suite_shift_unresolved = false;  // the whole suite moved and the gate cannot say why
  bool suite_shift_failed = false;      // the whole suite slower, beyond the machine's drift
  bool nothing_decided = false;         // compared, yet not one PASS or IMPROVED
  bool nothing_tested = false;          // compared, yet not one benchmark tested (too few repetitions, ...)
};

// 1 with a FAIL (a benchmark's, or the suite's shared factor's); else 2 when nothing was
// compared (every benchmark NEW or MISSING); else 6 when no all-clear can be given (an
// UNRESOLVED above tau, an unattributed suite shift, or nothing tested at all); else 0.
// Nothing decided (no PASS or IMPROVED) after a test is said, and is not exit 6.
GateExit gate_exit(const GateReport& report);

}  // namespace rooftop
