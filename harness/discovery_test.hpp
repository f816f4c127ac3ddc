#pragma once
// The gate's population p, with 3 or more baseline runs in a suite of unlike benchmarks: how
// often a benchmark of this suite, unchanged, would look at least as much like a change as
// this one does. The statistic is the likelihood ratio of a change of +-5/3 tau against none,
// each side a mixture over the suite's variances weighted by the benchmark's own runs (the
// Neyman-Pearson test of one benchmark, its running maximum in the change); its p is taken
// over the suite's population (the log-normal fitted to the suite's variances, the
// benchmark's sample variance redrawn), not conditional on the benchmark's own runs. That
// spends the false-alarm level where a change can be seen: a kernel whose runs agree to 0.2%
// shows 5% plainly, one whose runs scatter 3% cannot. On 17 real H200 nights (18 GEMMs, 5% in
// 4), with the noise model's precision-weighted factor and tails, it catches 95/97/99% of
// nights at 5/8/10 baseline nights (docs/gate.md, "Calibration on real nights").
#include "harness/noise_model.hpp"

namespace rooftop {

// The fewest degrees of freedom of a benchmark's own runs (runs - 1) for the population test.
inline constexpr double kMinDfForPopulationTest = 2;
// The fewest benchmarks tested whose variances make a population.
inline constexpr int kMinBenchmarksForPopulationTest = 12;

// The suite's benchmarks are many and unlike each other: the log-normal's sd of the log of
// their run-to-run variances is at least kMinLogSdForPopulationTest (the H200's GEMMs fit
// 1.27-2.2 from 3 to 10 nights). The calibration chose it: at 1.0 and 1.25, suites of like
// benchmarks under heavy-tailed or heterogeneous drift (whose fits scatter up to it from 2
// df a benchmark) FAILed 2.5-3% of A/A gates with 3 runs; at 1.4, 1%. Decided from the
// baseline's variances alone, which say nothing of tonight's change.
inline constexpr double kMinLogSdForPopulationTest = 1.4;
bool population_test_applies(const NoiseModel& model, int tests);

// p in [0, 1] for `fit.own` (needs the grid: model.grid_weight non-empty), tau in log units.
double discovery_p(const NoiseModel& model, const ModelFit& fit, double tau);

}  // namespace rooftop
