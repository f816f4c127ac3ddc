#pragma once
// The gate with the run as its unit: a stored baseline of several runs (or the last nights
// of the history) gives each benchmark one median per run, and the current run's median is
// tested against their spread. On a machine whose speed drifts between runs, the
// repetitions of one run say nothing about the next run; the spread of run medians does.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "harness/gate.hpp"
#include "harness/history_store.hpp"
#include "harness/results.hpp"

namespace rooftop {

struct RunUnitBaseline {
  std::string origin;
  int runs = 0;                                           // runs in the baseline in all
  std::map<std::string, std::vector<double>> medians_s;  // per benchmark, one median per run
};

// The baseline runs of `current`'s device and tier in the history: the last `max_runs`
// medians of each benchmark, leaving out the current run itself when it was already added.
RunUnitBaseline history_baseline(const std::vector<HistorySeries>& history, const RunResults& current, int max_runs,
                                 const std::string& origin);

// Empirical Bayes pooling of the benchmarks' variances (Smyth 2004, "Linear models and
// empirical Bayes methods for assessing differential expression", the method of limma):
// the variances are taken as scaled chi-square draws around a common prior, whose degrees
// of freedom say how alike the benchmarks are. Each benchmark's variance is then shrunk
// toward the prior, so that 3 to 10 runs give a usable test without assuming that every
// benchmark drifts alike.
struct VariancePrior {
  double df = 0;        // infinite: the variances differ no more than sampling explains
  double variance = 0;  // the prior's scale
};
VariancePrior fit_variance_prior(std::span<const double> variances, std::span<const double> dfs);
// The shrunk variance of one benchmark with variance s2 on df degrees of freedom.
double moderated_variance(const VariancePrior& prior, double s2, double df);

// FAIL when the one-sided test that the slowdown exceeds tau rejects at alpha after Holm
// (the whole interval at that level lies above tau); IMPROVED alike below -tau; PASS when
// the 95% interval lies below tau; else UNRESOLVED with the slowdown that would FAIL.
GateReport gate_against_runs(const RunUnitBaseline& baseline, const RunResults& current, const GateConfig& config,
                             const std::string& current_origin);

}  // namespace rooftop
