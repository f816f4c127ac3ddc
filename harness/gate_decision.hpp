#pragma once
// Verdicts from the noise model (harness/noise_model.hpp), the same rule in every mode.
//
// Each benchmark's own change (its shift less the run's shared factor) has a Student-t
// interval and a p against no change. FAIL when that p is a discovery across the suite
// (Benjamini-Hochberg at alpha) and the estimate lies beyond tau; IMPROVED alike below
// -tau; PASS when its own 95% interval lies below tau; else UNRESOLVED, with the change
// that would FAIL. With 3 or 4 baseline runs, benchmarks slower beyond tau that are no
// discovery alone can FAIL together (the joint test, gate_decision.cpp). The shared factor is
// decided on its own (SuiteShift): within the machine's drift between the baseline runs, or
// beyond it (FAIL: every benchmark slower at once), or unknown (UNRESOLVED).
#include <cstddef>
#include <vector>

#include "harness/gate.hpp"
#include "harness/noise_model.hpp"

namespace rooftop {

// `tested[i]` is the index in report.comparisons of `inputs[i]`; `runs` the baseline's
// run count. Sets each tested comparison's verdict, change, intervals, p and reason, and
// the report's suite_shift.
void decide_by_model(GateReport& report, const std::vector<std::size_t>& tested, const std::vector<ModelInput>& inputs,
                     int runs);

}  // namespace rooftop
