#pragma once
// The gate's one noise model, for every mode (a stored baseline of one run or many, the
// history, `compare`). On log-times, a benchmark b measured in run r is
//
//   y[b, r] = level[b] + run[r] + drift[b, r] + within[b, r]
//
// run[r]: the run's factor, shared by every benchmark of the run (the machine that day),
// estimated robustly across benchmarks (medians: Tukey's median polish over the baseline
// runs; for the current run, with baseline runs, the biweight centre of the shifts weighted
// by each benchmark's precision, with one the median of the shifts near their densest half:
// a third of a suite regressing moves neither). drift[b, r]: the benchmark's own change from run to
// run, its variance estimated per benchmark and shrunk toward the suite's (Smyth 2004)
// where there are runs to estimate it from, or, with a single baseline run, estimated
// across the benchmarks from the current comparison itself (a median of chi-square ratios,
// refitted without the changed benchmarks: 50% breakdown). within[b, r]: the
// repetitions' noise around the run's location, known from the samples (robust scale),
// floored at the timer's resolution. Heavy tails go into Student-t degrees of freedom.
//
// A benchmark's own change is its shift less the current run's factor; the factor itself
// is a question of its own (SuiteShift): the machine, or a change of everything at once.
#include <cstddef>
#include <span>
#include <vector>

namespace rooftop {

// One benchmark of a gate, as the model sees it.
struct ModelInput {
  std::vector<double> baseline;  // log location per baseline run, oldest first (aligned at the newest)
  double current = 0;            // the current run's log location
  // Variance of the current location less the baseline's from the repetitions alone (one
  // baseline run with its samples); 0 where the baseline keeps run locations only.
  double within = 0;
  double floor = 0;  // variance floor of one run's location: a timer tick's (tick^2 / 12, relative)
};

struct ModelFit {
  double own = 0;        // the benchmark's change less the run's factor (log)
  double variance = 0;   // of `own` (the mixture's mean, where there is one)
  double df = 0;         // of its Student-t (each component's, where there is a mixture); the likeliest
  // With baseline runs: the tails as a posterior over Student t's (df and weight); empty:
  // `df` alone.
  std::vector<double> tail_df, tail_weight;
  // With baseline runs: the benchmark's run-to-run variance as a posterior over a grid (the
  // suite's distribution of variances, estimated nonparametrically): the variances of `own`
  // under each grid point and their weights. Empty: one Student t of `variance`.
  std::vector<double> mix_variance, mix_weight;
  // For the population test (harness/discovery_test.hpp), with baseline runs: the sample
  // variance of the benchmark's run medians and its df (0: none), and the variance of `own`
  // under each grid point (NoiseModel::grid_variance), before its runs weigh them.
  double own_s2 = 0, own_df = 0;
  std::vector<double> prior_component_variance;
};
// P(noise > t sd) for one component of unit sd, under the fit's tails.
double standard_upper_tail(const ModelFit& fit, double t);
// P(noise > x) for the noise of `own` under the fit, and its p-quantile.
double noise_upper_tail(const ModelFit& fit, double x);
double noise_quantile(const ModelFit& fit, double p);

struct SuiteFactor {
  bool estimated = false;  // enough benchmarks (kMinBenchmarksForRunFactor) to tell it apart
  double shift = 0;        // the current run's factor against the baseline runs' (log)
  double variance = 0;     // of `shift` as an estimate (from the benchmarks' spread)
  double run_spread = 0;   // sd of the baseline runs' factors (log); 0 with fewer than 2 runs
  int baseline_runs = 0;
};

struct NoiseModel {
  std::vector<ModelFit> benchmarks;  // in the inputs' order
  SuiteFactor suite;
  bool drift_from_prior = false;     // one baseline run and too few benchmarks: the prior's drift
  // How much wider than the baseline runs' noise the current run's unchanged bulk spreads
  // (>= 1; the variances were multiplied by it).
  double run_overdispersion = 1;
  // The faster benchmarks' reading of it alone (>= 1; 1 where too few ran faster): what the
  // run's noise shows with no help from its slowdowns, for the night test.
  double faster_overdispersion = 1;
  // The share of benchmarks whose own change lies beyond 4 of the model's sds and, with
  // baseline runs, beyond 25%: a load's (a loaded run slows a random third of a suite by
  // 1.5x and more).
  double outlier_share = 0;
  // With baseline runs, for the population test: the suite's grid of run-to-run variances
  // and a log-normal's weights on it, fitted to the benchmarks' variances (smoother than the
  // nonparametric fit each benchmark's own posterior starts from), and the floor standing in
  // for a zero variance.
  std::vector<double> grid_variance, grid_weight;
  double grid_floor = 0;
  double grid_log_sd = 0;  // the log-normal's sd of the log-variance: how unlike the benchmarks are
};

inline constexpr std::size_t kMinBenchmarksForRunFactor = 5;
// With one baseline run, the benchmarks' own drift is read at the median across them (the
// changed ones left out); from 20 benchmarks on, its df from the bulk's tails (at most 10),
// from 5 to 19 n - 3.
inline constexpr std::size_t kMinBenchmarksForDriftAcross = 20;

// `runs`: the baseline's run count (each input holds up to that many locations).
// `drift_prior_sd`: the benchmark's own run-to-run spread (log sd) assumed where nothing
// measures it (one baseline run and fewer than kMinBenchmarksForRunFactor benchmarks).
NoiseModel fit_noise_model(std::span<const ModelInput> inputs, int runs, double drift_prior_sd);

// The location of one run's samples (log seconds) and its variance as an estimate: the
// Hodges-Lehmann centre of the log-times (95% efficient on normal noise, robust to outliers)
// with a variance from their robust scale (1.4826 MAD), floored by the timer's tick.
struct RunLocation {
  double location = 0, variance = 0, floor = 0;
};
// `tick`: the timer's tick as all of the benchmark's values show it (timer_tick), for a run
// whose samples are all equal and so show none; 0 where none is known (1% of the value is
// then assumed).
RunLocation run_location(std::span<const double> seconds, double tick = 0);

// A quantised timer's tick: the smallest gap between distinct values, where some value
// repeats; 0 where none does (a continuous timer).
double timer_tick(std::span<const double> seconds);

}  // namespace rooftop
