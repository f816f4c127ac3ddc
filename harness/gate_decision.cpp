#include "harness/gate_decision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "harness/discovery_test.hpp"
#include "harness/gate_statistics.hpp"
#include "harness/night_test.hpp"
#include "harness/special_functions.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

// The run's overdispersion (variance ratio) beyond which it decides no FAIL: a spread twice
// the baseline's. A steady run's estimate stays under 1.6 (48 benchmarks, 2 sd).
constexpr double kUnsteadyRun = 4;
// Beyond this share of a suite (of 8 benchmarks or more) changed at once, one run decides no
// FAIL: a machine loaded for part of a run slows a random third of a suite by 1.5x to 4x,
// which one run does not tell from a change of that many benchmarks (the nightly's re-run
// and `ab` do). 12 of 108 (11%) changed still FAIL.
constexpr double kBroadChange = 0.25;

std::string percent(double x) { return std::isfinite(x) ? fmt::format("{:+.1f}%", 100 * x) : "inf"; }

// The upper tail P(T > t) of a Student t.
double upper_tail(double t, double df) { return student_t_cdf(-t, df); }

std::string spread_phrase(const NoiseModel& model, int runs) {
  if (runs >= 2)
    return model.run_overdispersion > 1.2
               ? fmt::format("the spread between {} baseline runs, widened x{:.1f} because this run's benchmarks spread "
                             "that much more than the baseline's (a loaded machine?)", runs,
                             std::sqrt(model.run_overdispersion))
               : fmt::format("the spread between {} baseline runs", runs);
  if (model.drift_from_prior)
    return fmt::format("an assumed run-to-run spread (1 baseline run and fewer than {} benchmarks to measure it across: "
                       "gate.json 'drift_prior')", kMinBenchmarksForRunFactor);
  return "the run-to-run spread measured across the suite's benchmarks (a start-up baseline of 1 run: its own "
         "nights, `gate --history`, learn each benchmark's)";
}

// The t quantiles of a benchmark's own 95% interval, of the level at which it would be the
// suite's only discovery (two-sided alpha / m) and of the selected intervals' level, cached by
// df: a suite's benchmarks share a few df values, and each quantile is a bisection of the
// incomplete beta.
class Quantiles {
 public:
  Quantiles(double alone, double selected) : alone_(std::max(alone, 1e-300)), selected_(std::max(selected, 1e-300)) {}
  struct At {
    double q95, alone, selected;
  };
  double alone() const { return alone_; }
  double selected() const { return selected_; }
  At operator()(double df) {
    auto it = cache_.find(df);
    if (it == cache_.end())  // upper quantiles as minus the lower ones: 1 - level rounds to 1 for tiny levels
      it = cache_.emplace(df, At{student_t_quantile(0.975, df), -student_t_quantile(alone_ / 2, df),
                                 -student_t_quantile(selected_ / 2, df)}).first;
    return it->second;
  }

 private:
  double alone_, selected_;
  std::map<double, At> cache_;
};

// Two-sided p of a benchmark's own change against no change at all.
double p_against_zero(const ModelFit& fit) {
  const double se = std::sqrt(fit.variance);
  if (!(se > 1e-9)) return 1.0;
  if (!fit.mix_variance.empty()) return std::min(1.0, 2 * noise_upper_tail(fit, std::fabs(fit.own)));
  return std::min(1.0, 2 * upper_tail(std::fabs(fit.own) / se, fit.df));
}

// One benchmark's verdict. `q`: its p against no change, adjusted across the suite
// (Benjamini-Hochberg); `discovery`: q <= alpha. A FAIL is a discovery whose estimate lies
// beyond tau: the false discovery rate bounds the false FAILs, and the estimate keeps a
// change too small to matter from failing.
void decide_benchmark(Comparison& c, const ModelFit& fit, const NoiseModel& model, int runs, int tests, double p,
                      const std::string& p_source, double q, int discoveries, const GateConfig& config,
                      Quantiles& quantiles) {
  const double tau = std::log1p(c.tau), se = std::sqrt(fit.variance);
  if (!(se > 1e-9)) {  // identical locations in every run and no timer tick seen: nothing to test against
    c.change = c.change_low = c.change_high = std::expm1(fit.own);  // a change above tau still keeps exit 0 away
    c.verdict = Verdict::unresolved;
    c.reason = fmt::format("the {} baseline runs' medians are identical: no spread to test against (was one run "
                           "promoted twice?)", runs);
    return;
  }
  // A mixture's quantiles are its own (in units of its sd); a Student t's are shared by df.
  const auto at = fit.mix_variance.empty()
                      ? quantiles(fit.df)
                      : Quantiles::At{noise_quantile(fit, 0.975) / se, noise_quantile(fit, 1 - quantiles.alone() / 2) / se,
                                      noise_quantile(fit, 1 - quantiles.selected() / 2) / se};
  c.change = std::expm1(fit.own);
  c.change_low = std::expm1(fit.own - at.q95 * se);
  c.change_high = std::expm1(fit.own + at.q95 * se);
  // The interval of a selected benchmark at the false coverage rate alpha (Benjamini and
  // Yekutieli 2005: level 1 - R alpha / m for R discoveries of m).
  c.decision_low = std::expm1(fit.own - at.selected * se);
  c.decision_high = std::expm1(fit.own + at.selected * se);
  c.p = p;
  c.p_holm = q;
  const bool discovery = q <= config.alpha;
  // The smallest slowdown that FAILs even as the suite's only discovery.
  c.minimum_detectable = std::expm1(std::max(tau, at.alone * se));
  c.tested = true;
  const std::string noise_shape =
      fit.mix_variance.empty() ? fmt::format("{:.0f} df", fit.df)
      : std::isinf(fit.df)     ? std::string("its posterior over the suite's variances")
                               : fmt::format("its posterior over the suite's variances, tails of {:.0f} df", fit.df);
  const std::string shared =
      model.suite.estimated && std::fabs(model.suite.shift) >= 0.0005
          ? fmt::format(", the suite's shared {} taken out", percent(std::expm1(model.suite.shift)))
          : "";
  const std::string stats =
      fmt::format("own change {} [{}, {}]{}; p {:.2g}{}, q {:.2g} (Benjamini-Hochberg over {} benchmarks, {} "
                  "discover{}); noise {:.1f}% from {} ({})",
                  percent(c.change), percent(c.change_low), percent(c.change_high), shared, c.p,
                  p_source, q, tests, discoveries,
                  discoveries == 1 ? "y" : "ies", 100 * se, spread_phrase(model, runs), noise_shape);
  const std::string clocks = c.clock_differs ? fmt::format("; clock {:.0f} MHz vs baseline {:.0f} MHz", c.clock_current,
                                                           c.clock_baseline)
                                             : "";
  // A run whose unchanged bulk spreads more than twice as wide as the baseline runs' is not
  // one to fail a build on: its noise is not the baseline's.
  const bool unsteady = model.run_overdispersion > kUnsteadyRun;
  const bool broad = tests >= 8 && model.outlier_share > kBroadChange;
  if (unsteady && !(fit.own + at.q95 * se < tau)) {
    c.verdict = Verdict::unresolved;
    c.reason = fmt::format("this run's benchmarks spread x{:.1f} wider than the baseline runs' (a loaded machine?): "
                           "no FAIL from this run alone; re-run (`gate --confirm`) or compare builds with `rooftop ab`; "
                           "{}", std::sqrt(model.run_overdispersion), stats);
  } else if (broad && discovery && std::fabs(fit.own) > tau) {
    c.verdict = Verdict::unresolved;
    c.reason = fmt::format("{:.0f}% of the suite's benchmarks changed at once, beyond the noise: a machine loaded for "
                           "part of the run, or a change of that many; no FAIL from this run alone; re-run (`gate "
                           "--confirm`) or compare builds with `rooftop ab`; {}", 100 * model.outlier_share, stats);
  } else if (discovery && fit.own > tau) {
    c.verdict = Verdict::fail;
    c.reason = fmt::format("slower by {}: beyond the {:.0f}% threshold, and a real change (q {:.2g} <= {}: false "
                           "discovery rate over {} benchmarks); {}{}", percent(c.change), 100 * c.tau, q, config.alpha,
                           tests, stats, c.clock_differs ? clocks + ": the slowdown may be the clock's" : "");
  } else if (c.clock_differs) {
    c.verdict = Verdict::unresolved;
    c.reason = fmt::format("clocks more than {:.0f}% apart{}: samples not comparable; {}", 100 * config.clock_tolerance,
                           clocks, stats);
  } else if (discovery && fit.own < -tau) {
    c.verdict = Verdict::improved;
    c.reason = fmt::format("faster by {}: beyond -{:.0f}%, and a real change (q {:.2g}); {}", percent(-c.change),
                           100 * c.tau, q, stats);
  } else if (fit.own + at.q95 * se < tau) {
    c.verdict = Verdict::pass;
    c.reason = fmt::format("slowdown below {:.0f}% with 95% confidence; {}", 100 * c.tau, stats);
  } else {
    c.verdict = Verdict::unresolved;
    if (fit.own - at.q95 * se > tau)
      c.reason = fmt::format("likely slower than {:.0f}% (its own 95% interval lies above it) but not a discovery "
                             "across the suite: re-run to confirm (`gate --confirm`); {}; a change of {} or more would "
                             "FAIL", 100 * c.tau, stats, percent(c.minimum_detectable));
    else if (fit.own > tau)
      c.reason = fmt::format("slower by {}, beyond {:.0f}%, but not told from noise across the suite; {}; a change of {} "
                             "or more would FAIL; more baseline runs (`baseline update --append`, or the history's "
                             "nights) narrow it", percent(c.change), 100 * c.tau, stats, percent(c.minimum_detectable));
    else
      c.reason = fmt::format("cannot rule out a {:.0f}% slowdown at this noise: {}; a change of {} or more would FAIL",
                             100 * c.tau, stats, percent(c.minimum_detectable));
  }
}

// The joint test's truncation: the p's at or below it enter the product.
constexpr double kJointTruncation = 0.05;
// The largest change the joint test takes in: one beyond it that is no discovery alone is a
// noisy benchmark's, and several at once a load's (the development VM's memory-bound GEMMs,
// 44-79% slower together in one run of ten, FAILed 10% of its A/A gates at 3 nights).
constexpr double kJointLargest = 0.25;
// The product needs independent p's: the suite's shared factor taken out (5 or more
// benchmarks) and each benchmark's spread from its own runs. With one baseline run the
// spread is read across the benchmarks of this very comparison, so every p shares it, and a
// machine's two clock states leave the whole suite's p's low together (bimodal clocks FAILed
// 2.2% of A/A benchmarks at 1 run; 3-benchmark suites, no factor taken out, under a shared
// t 3 drift 2-7% of A/A suites at 1 to 3 runs). With 2 runs
// the common-spread check below has 1 df. From 5 runs the benchmarks' own tests reach the
// target alone (5% in 4 of 18 H200 GEMMs, 95% of nights), while groups that move together
// look, from 5 runs, like independent quiet benchmarks to every test built on them (the
// calibration's correlated groups: the joint test FAILed 2.5% of A/A suites at 5 runs).
constexpr int kMinRunsForJointTest = 3, kMaxRunsForJointTest = 4;

// The joint test's product counts its p's as independent; benchmarks that move together
// from run to run (a group sharing a code path or the memory's state) are not. So its members
// must also have moved together further than they move together between the baseline runs:
// their precision-weighted mean change, against that mean's own spread over the baseline runs
// (each run's shared factor, the median across the suite, taken out), one-sided at alpha with
// runs - 1 df. Independent members average their noise away and pass; a group of 8 moving by
// a shared 3% from run to run (the calibration's correlated groups) moves by it tonight too.
bool members_moved_beyond_their_common_spread(const std::vector<std::size_t>& members, const std::vector<ModelInput>& inputs,
                                              const NoiseModel& model, int runs, double alpha) {
  const auto full = [&](const ModelInput& in) { return static_cast<int>(in.baseline.size()) == runs; };
  std::vector<std::vector<double>> centred;  // per benchmark with every run: its runs less their mean
  for (const auto& in : inputs)
    if (full(in)) {
      double mean = 0;
      for (double y : in.baseline) mean += y / runs;
      std::vector<double> c;
      for (double y : in.baseline) c.push_back(y - mean);
      centred.push_back(std::move(c));
    } else {
      centred.emplace_back();
    }
  std::vector<double> factor(static_cast<std::size_t>(runs));
  for (int r = 0; r < runs; ++r) {
    std::vector<double> column;
    for (const auto& c : centred)
      if (!c.empty()) column.push_back(c[static_cast<std::size_t>(r)]);
    if (column.empty()) return false;
    factor[static_cast<std::size_t>(r)] = median(column);
  }
  std::vector<double> series(static_cast<std::size_t>(runs), 0.0);
  double weights = 0, change = 0;
  for (std::size_t m : members) {
    if (centred[m].empty()) return false;
    const double w = 1 / model.benchmarks[m].variance;
    weights += w;
    change += w * model.benchmarks[m].own;
    for (int r = 0; r < runs; ++r)
      series[static_cast<std::size_t>(r)] += w * (centred[m][static_cast<std::size_t>(r)] - factor[static_cast<std::size_t>(r)]);
  }
  change /= weights;
  double mean = 0, ss = 0;
  for (auto& x : series) mean += (x /= weights) / runs;
  for (double x : series) ss += (x - mean) * (x - mean);
  const double se = std::sqrt(ss / (runs - 1) * (1 + 1.0 / runs));
  return se > 0 && change / se > student_t_quantile(1 - alpha, runs - 1.0);
}

// Several benchmarks slower beyond tau, none alone a discovery among the suite's tests: the
// truncated product of the p's of those beyond tau (at or below kJointTruncation), against
// every test of the suite. The fewest of them, the smallest p's first, whose product is at
// or below alpha FAIL, as one change seen together; the rest stay as they were (taking every
// p under the truncation named the two-state kernels that happened to move 4-7% on a night
// with a real change: 28 false FAILs in 170 such H200 nights, 7 this way). Leaving out the
// p's of benchmarks below tau, and those past the fewest, keeps the test valid: the null's
// product can only be larger. Not from a run whose bulk spreads wider than the baseline's or
// whose changes are a load's (decide_benchmark's unsteady and broad runs, kJointLargest).
void decide_jointly(GateReport& report, const std::vector<std::size_t>& tested, const std::vector<double>& p,
                    const std::vector<ModelInput>& inputs, const NoiseModel& model, int runs) {
  if (runs < kMinRunsForJointTest || runs > kMaxRunsForJointTest || !model.suite.estimated) return;
  if (model.run_overdispersion > kUnsteadyRun || (tested.size() >= 8 && model.outlier_share > kBroadChange)) return;
  std::vector<std::pair<double, std::size_t>> candidates;  // (p, index in tested)
  for (std::size_t i = 0; i < tested.size(); ++i) {
    const auto& c = report.comparisons[tested[i]];
    const bool beyond = c.verdict == Verdict::fail || (c.verdict == Verdict::unresolved && c.change > c.tau &&
                                                        c.change <= kJointLargest && !c.clock_differs);
    if (beyond && p[i] <= kJointTruncation) candidates.emplace_back(p[i], i);
  }
  std::sort(candidates.begin(), candidates.end());
  const int tests = static_cast<int>(tested.size());
  std::vector<double> product;
  std::vector<std::size_t> members;
  for (std::size_t n = 0; n < candidates.size(); ++n) {
    product.push_back(candidates[n].first);
    members.push_back(candidates[n].second);
    if (n == 0) continue;
    const double joint = truncated_product_p(product, tests, kJointTruncation);
    if (joint > report.config.alpha) continue;
    // One such test for each group of this many the suite could hold.
    const double level = report.config.alpha * static_cast<double>(members.size()) / tests;
    if (!members_moved_beyond_their_common_spread(members, inputs, model, runs, level)) return;
    for (std::size_t j = 0; j <= n; ++j) {
      auto& c = report.comparisons[tested[candidates[j].second]];
      if (c.verdict == Verdict::fail) continue;
      c.verdict = Verdict::fail;
      c.reason = fmt::format("slower by {}: beyond the {:.0f}% threshold, and a real change seen together with {} other "
                             "benchmark{} slower beyond it (the truncated product of their p's: p {:.2g} <= {} over {} "
                             "benchmarks), though not a discovery alone (alone it read: {})", percent(c.change),
                             100 * c.tau, n, n == 1 ? "" : "s", joint, report.config.alpha, tests, c.reason);
    }
    return;
  }
}

// The night test (harness/night_test.hpp) where it applies: 3 or 4 baseline runs (as the
// joint test's: from 5 the benchmarks' own tests reach the target alone), 12 or more
// benchmarks and the suite's grid of variances; not from an unsteady run or a load's broad
// change. Where the night is a slowdown, the fewest likeliest-slowed benchmarks that carry it
// FAIL, those slower beyond tau, if together they also moved beyond their common spread over
// the baseline runs (a group that moves together from night to night is one benchmark's
// worth of evidence, which the night's ratio counts as several). Returns whether it applied.
// A night carried by one benchmark alone is that benchmark's own question, which its test
// left open: the night test FAILs two or more. A two-state kernel whose baseline nights all
// sat in one state jumps 5-8% and reads as quiet and slowed: one carrier FAILed 4 of 36 A/A
// gates of the H200's 6-night session at alpha, 3 of 36 at a tenth of alpha with 4 nights.
constexpr std::size_t kMinCarriersToFail = 2;
bool decide_night(GateReport& report, const std::vector<std::size_t>& tested, const std::vector<ModelInput>& inputs,
                  const NoiseModel& model, int runs) {
  const int tests = static_cast<int>(tested.size());
  if (runs < kMinRunsForJointTest || runs > kMaxRunsForJointTest || !model.suite.estimated ||
      tests < kMinBenchmarksForNightTest || model.grid_weight.empty())
    return false;
  if (model.run_overdispersion > kUnsteadyRun || model.outlier_share > kBroadChange) return true;
  const auto could_fail = [&](std::size_t i) {
    const auto& c = report.comparisons[tested[i]];
    return c.verdict == Verdict::unresolved && c.change > c.tau && c.change <= kJointLargest && !c.clock_differs;
  };
  // Fewer benchmarks than it takes could FAIL: the night's p would decide nothing (and its
  // simulated null costs about a tenth of a second).
  std::size_t eligible = 0;
  for (std::size_t i = 0; i < tested.size(); ++i) eligible += could_fail(i);
  if (eligible < kMinCarriersToFail) return true;
  std::vector<double> taus;
  for (std::size_t i : tested) taus.push_back(std::log1p(report.comparisons[i].tau));
  const auto night = night_test(model, taus, report.config.alpha);
  std::vector<std::size_t> members;
  for (std::size_t i : night.carriers)
    if (could_fail(i)) members.push_back(i);
  if (members.size() < kMinCarriersToFail ||
      !members_moved_beyond_their_common_spread(members, inputs, model, runs, report.config.alpha))
    return true;
  for (std::size_t i : members) {
    auto& c = report.comparisons[tested[i]];
    c.verdict = Verdict::fail;
    c.reason = fmt::format("slower by {}: beyond the {:.0f}% threshold, and one of the {} benchmark{} that carry a "
                           "slowdown of this run (the night test over {} benchmarks: p {:.2g} <= {}; this one slowed "
                           "with probability {:.0f}%), though not a discovery alone (alone it read: {})",
                           percent(c.change), 100 * c.tau, members.size(), members.size() == 1 ? "" : "s", tests,
                           night.p, report.config.alpha, 100 * night.slowed[i], c.reason);
  }
  return true;
}

// The shared factor: the machine, or everything changed at once.
SuiteShift decide_suite(const NoiseModel& model, const std::vector<double>& taus, const GateConfig& config, int benchmarks) {
  SuiteShift s;
  s.benchmarks = benchmarks;
  s.baseline_runs = model.suite.baseline_runs;
  s.run_spread = model.suite.run_spread;
  if (!model.suite.estimated) {
    s.reason = fmt::format("not estimated: {} benchmark{} (a shared factor needs {} or more); each benchmark's test "
                           "carries the run-to-run spread whole", benchmarks, benchmarks == 1 ? "" : "s",
                           kMinBenchmarksForRunFactor);
    return s;
  }
  s.estimated = true;
  const int runs = model.suite.baseline_runs;
  const double tau = std::log1p(median(taus)), shift = model.suite.shift;
  // With 2 or more baseline runs the machine's drift is the spread of their factors.
  const bool drift_known = runs >= 3;
  const double drift = drift_known ? model.suite.run_spread * model.suite.run_spread * (1 + 1.0 / runs) : 0;
  const double se = std::sqrt(drift + model.suite.variance), df = drift_known ? runs - 1.0 : 30.0;
  const double q95 = student_t_quantile(0.975, df);
  s.change = std::expm1(shift);
  s.change_low = std::expm1(shift - q95 * se);
  s.change_high = std::expm1(shift + q95 * se);
  const std::string what = fmt::format("every benchmark moved by {} together [{}, {}]", percent(s.change),
                                       percent(s.change_low), percent(s.change_high));
  if (shift <= tau) {
    s.reason = what + fmt::format(": within the {:.0f}% threshold", 100 * std::expm1(tau));
    return s;
  }
  if (!drift_known) {
    s.verdict = Verdict::unresolved;
    s.reason = what + fmt::format(": beyond the {:.0f}% threshold, and with {} baseline run{} the machine's own "
                                  "drift between runs is unknown, so it cannot tell the machine from a change of "
                                  "everything; `rooftop ab` against the baseline's build, or 3 or more baseline runs, "
                                  "tell them apart", 100 * std::expm1(tau), runs, runs == 1 ? "" : "s");
    return s;
  }
  // One test, at a tenth of the suite's alpha: a machine whose factors have heavier tails
  // than a few runs can show must not fail suites.
  const double p = upper_tail((shift - tau) / se, df);
  if (p < config.alpha / 10) {
    s.verdict = Verdict::fail;
    s.reason = what + fmt::format(": beyond the {:.0f}% threshold and beyond the machine's drift between the {} "
                                  "baseline runs (sd {:.1f}%, p {:.2g}): a change of everything at once, or another "
                                  "machine; `rooftop ab` against the baseline's build tells which",
                                  100 * std::expm1(tau), runs, 100 * model.suite.run_spread, p);
  } else if (shift / se < q95) {
    s.reason = what + fmt::format(": within the machine's drift between the {} baseline runs (sd {:.1f}%)", runs,
                                  100 * model.suite.run_spread);
  } else {
    s.verdict = Verdict::unresolved;
    s.reason = what + fmt::format(": beyond the {:.0f}% threshold and larger than the machine's usual drift (sd {:.1f}% "
                                  "over {} runs), but not surely: the machine or a change of everything; `rooftop ab` "
                                  "against the baseline's build tells which", 100 * std::expm1(tau),
                                  100 * model.suite.run_spread, runs);
  }
  return s;
}

// A suite too small to estimate a shared factor (under kMinBenchmarksForRunFactor) whose
// every benchmark FAILs moved together: the machine or a change of everything, which one
// run cannot tell apart. UNRESOLVED (exit 6) with that said, never a FAIL of each.
void settle_small_suite_shift(GateReport& report, const std::vector<std::size_t>& tested) {
  if (tested.size() < 2) return;
  std::vector<double> changes;
  for (std::size_t i : tested) {
    const auto& c = report.comparisons[i];
    if (c.verdict != Verdict::fail || c.broken) return;
    changes.push_back(std::log1p(c.change));
  }
  auto& s = report.suite_shift;
  s.estimated = true;
  s.verdict = Verdict::unresolved;
  s.change = std::expm1(median(changes));
  s.change_low = std::expm1(*std::min_element(changes.begin(), changes.end()));
  s.change_high = std::expm1(*std::max_element(changes.begin(), changes.end()));
  s.reason = fmt::format("all {} benchmarks of this small suite are slower together ({} to {}): the machine or a change "
                         "of everything, which one run cannot tell apart; a re-run (`gate --confirm`) or `rooftop ab` "
                         "against the baseline's build does", tested.size(), percent(s.change_low), percent(s.change_high));
  for (std::size_t i : tested) {
    auto& c = report.comparisons[i];
    c.verdict = Verdict::unresolved;
    c.reason = "every benchmark of the suite moved together (the suite shift above); " + c.reason;
  }
}

}  // namespace

void decide_by_model(GateReport& report, const std::vector<std::size_t>& tested, const std::vector<ModelInput>& inputs,
                     int runs) {
  const auto model = fit_noise_model(inputs, runs, report.config.drift_prior);
  const int tests = static_cast<int>(tested.size());
  // The benchmark's own p against no change (conditional on its runs), or where the suite's
  // benchmarks are unlike each other the discovery test over its population.
  const bool population = population_test_applies(model, tests);
  std::vector<double> p;
  std::vector<std::string> p_source;
  for (std::size_t i = 0; i < tested.size(); ++i) {
    const auto& fit = model.benchmarks[i];
    if (population && fit.own_df >= kMinDfForPopulationTest) {
      p.push_back(discovery_p(model, fit, std::log1p(report.comparisons[tested[i]].tau)));
      p_source.push_back(" over the suite's population of unlike benchmarks");
    } else {
      p.push_back(p_against_zero(fit));
      p_source.emplace_back();
    }
  }
  const auto q = benjamini_hochberg(p);
  const double alpha = report.config.alpha;
  const int discoveries = static_cast<int>(std::count_if(q.begin(), q.end(), [&](double x) { return x <= alpha; }));
  const double m = std::max(tests, 1);
  Quantiles quantiles(alpha / m, alpha * std::max(discoveries, 1) / m);
  std::vector<double> taus;
  for (std::size_t i = 0; i < tested.size(); ++i) {
    auto& c = report.comparisons[tested[i]];
    decide_benchmark(c, model.benchmarks[i], model, runs, tests, p[i], p_source[i], q[i], discoveries,
                     report.config, quantiles);
    taus.push_back(c.tau);
  }
  if (tested.empty()) return;
  if (!decide_night(report, tested, inputs, model, runs))
    decide_jointly(report, tested, p, inputs, model, runs);
  report.suite_shift = decide_suite(model, taus, report.config, tests);
  if (!model.suite.estimated) settle_small_suite_shift(report, tested);
}

}  // namespace rooftop
