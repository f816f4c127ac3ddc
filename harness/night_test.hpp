#pragma once
// The night test, with 3 or 4 baseline runs in a suite of 12 or more benchmarks: did this run
// slow the suite anywhere? Each benchmark's evidence is its likelihood ratio of a slowdown of
// 5/3 tau against none, a mixture over the suite's variances weighted by its own few runs (as
// the population p's, one-sided); the night's statistic is the likelihood ratio of "each
// benchmark slowed with probability pi" against "none": the sum over benchmarks of
// log(1 - pi + pi LR). Its null is simulated: nights of benchmarks drawn from the suite (a
// benchmark's components, a variance from the suite's log-normal, its sample variance redrawn,
// its change drawn with the model's tails). From 3 nights a kernel's own 2 df cannot show
// that it is quiet, and a p per benchmark spends the level on each alone; the night's ratio
// adds up the moderate evidence of several (on the H200's 17 real nights, 5% in 4 of 18 GEMMs,
// such a test with its threshold from the true null flags 99.9% of nights at 1% of unchanged
// ones, where the best per-kernel test flags 92%; this one, its null simulated from what 3
// nights show, 86.5%, where the joint test caught 74.7%: docs/gate.md, "Calibration on real
// nights").
#include <vector>

#include "harness/noise_model.hpp"

namespace rooftop {

// The prior share of a suite's benchmarks slowed, in the alternative: a fifth (the H200's
// nights caught 91 / 92 / 92% at a tenth / a fifth / 0.35, 3 nights: not sensitive).
inline constexpr double kNightSlowedShare = 0.2;
// The fewest benchmarks tested: a population of variances to draw the null's from.
inline constexpr int kMinBenchmarksForNightTest = 12;

struct NightTest {
  double p = 1;                // of the night's statistic, over simulated unchanged nights
  double statistic = 0;        // sum of log(1 - pi + pi LR)
  std::vector<double> slowed;  // each benchmark's posterior probability of a slowdown
  // The fewest benchmarks, the likeliest slowed first, without which the rest of the night is
  // no longer a slowdown at alpha (indices in the model's order); empty where p > alpha.
  std::vector<std::size_t> carriers;
};

// taus: each benchmark's threshold (log), in the model's order. Needs the model's grid
// (baseline runs); deterministic (a fixed seed).
NightTest night_test(const NoiseModel& model, const std::vector<double>& taus, double alpha);

}  // namespace rooftop
