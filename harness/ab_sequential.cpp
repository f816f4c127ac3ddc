#include "harness/ab_sequential.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <tuple>
#include <stdexcept>

#include "harness/gate_statistics.hpp"
#include "harness/pooled_scale.hpp"
#include "harness/special_functions.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

constexpr double kWinsorLimit = 3;  // in pooled scales: only stray values are pulled in
constexpr double kSpendingPower = 2;  // alpha (n / N)^2: little spent early, the last look near a fixed test's

std::string percent(double x) { return std::isfinite(x) ? fmt::format("{:+.1f}%", 100 * x) : "unbounded"; }
// A log change as a relative one, in percent.
std::string log_percent(double x) { return percent(std::expm1(x)); }

bool usable(const ResultRecord& r) { return r.status == Status::ok && !r.samples.empty(); }
bool broken(const ResultRecord& r) { return r.status == Status::failed || r.status == Status::error; }

std::map<std::string, const ResultRecord*> by_name(const RunResults& run) {
  std::map<std::string, const ResultRecord*> out;
  for (const auto& r : run.results) out[r.problem.name()] = &r;
  return out;
}

Comparison fail_of_broken(const std::string& name, const std::string& family, const ResultRecord& r, int pair) {
  Comparison c;
  c.name = name;
  c.family = family;
  c.verdict = Verdict::fail;
  c.broken = true;
  c.reason = fmt::format("build B's run in pair {} {}: {}", pair,
                         r.status == Status::failed ? "failed its correctness check" : "errored", r.reason);
  return c;
}

// FAIL where the interval at the plan's level excludes no change and the estimate lies
// beyond tau (IMPROVED alike below -tau); PASS where the interval at the PASS side's level
// lies within +-tau; nothing while neither holds (another pair).
std::optional<Verdict> verdict_of(double centre, LogInterval decision, LogInterval pass, double tau) {
  const double up = std::log1p(tau), down = std::log1p(-std::min(tau, 0.999));
  if (decision.low > 0 && centre > up) return Verdict::fail;
  if (decision.high < 0 && centre < down) return Verdict::improved;
  if (pass.low > down && pass.high < up) return Verdict::pass;
  return std::nullopt;
}
}  // namespace

SequentialAb::SequentialAb(GateConfig config, int max_pairs) : config_(std::move(config)), max_pairs_(max_pairs) {}

void SequentialAb::set_max_pairs(int max_pairs) {
  if (planned_) throw std::logic_error("SequentialAb: the plan's pairs are fixed at the first look");
  max_pairs_ = max_pairs;
}

void SequentialAb::add_pair(const RunResults& a, const RunResults& b) {
  ++pairs_;
  const auto in_a = by_name(a), in_b = by_name(b);
  if (pairs_ == 1) {
    // The first pair runs every point and sets what is compared.
    for (const auto& [name, r] : in_a) {
      if (in_b.count(name)) continue;
      Comparison c;
      c.name = name;
      c.family = r->problem.family;
      c.verdict = Verdict::missing;
      c.reason = "in build A's run but not in build B's";
      one_sided_.push_back(c);
    }
    for (const auto& [name, r] : in_b) {
      if (in_a.count(name)) {
        auto& s = series_[name];
        s.family = r->problem.family;
        s.tau = config_.tau_for(name, s.family);
        continue;
      }
      Comparison c;
      c.name = name;
      c.family = r->problem.family;
      c.verdict = broken(*r) ? Verdict::fail : Verdict::added;
      c.reason = broken(*r) ? fail_of_broken(name, c.family, *r, 1).reason : "in build B's run but not in build A's";
      one_sided_.push_back(c);
    }
  }
  std::vector<double> this_pair;
  for (auto& [name, s] : series_) {
    if (s.decided && s.decided->broken) continue;
    if (s.decided && s.diffs.empty()) continue;  // never measured
    const auto ra = in_a.find(name), rb = in_b.find(name);
    if (rb != in_b.end() && broken(*rb->second)) {  // a failed check outweighs any timing
      s.decided = fail_of_broken(name, s.family, *rb->second, pairs_);
      continue;
    }
    if (ra == in_a.end() || rb == in_b.end() || !usable(*ra->second) || !usable(*rb->second)) {
      // Not measured in the first pair (skipped, or build A's failed its check): later pairs
      // would not measure it either, so it waits for nothing.
      if (pairs_ == 1) {
        const bool a_side = ra != in_a.end() && !usable(*ra->second);
        const auto& r = a_side ? *ra->second : *rb->second;
        Comparison c;
        c.name = name;
        c.family = s.family;
        c.verdict = Verdict::unresolved;
        c.reason = fmt::format("not measured in build {}'s first run: {}: {}", a_side ? 'A' : 'B',
                               r.status == Status::skipped ? "skipped" : "failed", r.reason);
        s.decided = c;
      }
      continue;
    }
    const auto sa = ra->second->seconds(), sb = rb->second->seconds();
    const double d = std::log(median(sb)) - std::log(median(sa));
    s.diffs[pairs_] = d;
    this_pair.push_back(d);
    if (!s.decided) {
      s.a_samples.insert(s.a_samples.end(), sa.begin(), sa.end());
      s.b_samples.insert(s.b_samples.end(), sb.begin(), sb.end());
    }
  }
  if (pairs_ == 1) {
    plan_.alpha = config_.alpha;
    plan_.benchmarks = static_cast<int>(undecided().size());
  }
  // The pair's common factor: what moved every benchmark of this pair together.
  common_.push_back(uses_common_factor() && static_cast<int>(this_pair.size()) >= kMinForCommonFactor
                        ? std::optional<double>(median(this_pair))
                        : std::nullopt);
  if (pairs_ >= AbPlan::kFirstLook) {
    ensure_plan();
    if (plan_.has_look(pairs_)) look();
  }
}

namespace {
// The boundary of a plan, computed once per (alpha, N): a simulation builds thousands of plans.
SequentialBoundary cached_boundary(double alpha, int first, int last, double rho) {
  static std::mutex lock;
  static std::map<std::tuple<double, int, int, double>, SequentialBoundary> cache;
  const std::lock_guard<std::mutex> hold(lock);
  const auto key = std::make_tuple(alpha, first, last, rho);
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() > 64) cache.clear();
    it = cache.emplace(key, spending_boundary(alpha, first, last, rho)).first;
  }
  return it->second;
}
}  // namespace

void SequentialAb::ensure_plan() {
  if (planned_) return;
  planned_ = true;
  plan_.max_pairs = max_pairs_;
  plan_.questions = std::max(1, plan_.benchmarks + (uses_common_factor() ? 1 : 0));
  if (max_pairs_ >= AbPlan::kFirstLook) {
    plan_.boundary = cached_boundary(plan_.alpha / plan_.questions, AbPlan::kFirstLook, max_pairs_, kSpendingPower);
    plan_.pass_boundary = cached_boundary(AbPlan::kPassAlpha, AbPlan::kFirstLook, max_pairs_, kSpendingPower);
  } else {
    plan_.boundary = SequentialBoundary{plan_.alpha / plan_.questions, AbPlan::kFirstLook, AbPlan::kFirstLook - 1,
                                        kSpendingPower, {}};
    plan_.pass_boundary = plan_.boundary;
  }
}

std::vector<double> SequentialAb::residuals(const Series& s) const {
  std::vector<double> r;
  for (const auto& [pair, d] : s.diffs) {
    const auto& c = common_[static_cast<std::size_t>(pair - 1)];
    if (uses_common_factor() && !c) continue;  // a pair too thin to take its factor out
    r.push_back(c ? d - *c : d);
  }
  return r;
}

std::map<std::string, SequentialAb::Estimate> SequentialAb::estimates() const {
  // Two passes over every series with two or more values: a first pooled scale to
  // winsorize with, then the pooled scale of the winsorized values.
  std::map<std::string, std::vector<double>> values;
  for (const auto& [name, s] : series_) {
    if (s.decided && s.decided->broken) continue;
    auto r = residuals(s);
    if (r.size() >= 2) values[name] = std::move(r);
  }
  std::vector<double> variances, dfs;
  for (const auto& [name, r] : values) {
    const double sd = sample_stddev(r);
    variances.push_back(sd * sd);
    dfs.push_back(static_cast<double>(r.size() - 1));
  }
  const ScalePrior first = fit_scale_prior(variances, dfs, /*robust=*/true);
  std::map<std::string, RobustLocation> robust;
  std::size_t i = 0;
  for (const auto& [name, r] : values) {
    const double scale = std::sqrt(moderated_variance(first, variances[i], dfs[i]));
    robust[name] = winsorized_location(r, scale, kWinsorLimit);
    variances[i++] = robust[name].variance;
  }
  const ScalePrior prior = fit_scale_prior(variances, dfs);
  std::map<std::string, Estimate> out;
  for (const auto& [name, rl] : robust) {
    // Shrinkage pulls a quiet series' variance up and a noisy one's down; the pull down is
    // what a spread of scales unlike the prior's (lognormal, as on the VM) gets wrong, and it
    // made false FAILs 2.3 times alpha. A series noisier than its moderated variance keeps
    // its own, on its own df (a plain t).
    const double v = moderated_variance(prior, rl.variance, rl.n - 1);
    if (rl.variance > v)
      out[name] = Estimate{rl.centre, std::sqrt(rl.variance / rl.n), static_cast<double>(rl.n - 1), rl.n};
    else
      out[name] = Estimate{rl.centre, std::sqrt(v / rl.n), prior.df + rl.n - 1, rl.n};
  }
  return out;
}

std::optional<SequentialAb::Estimate> SequentialAb::suite_estimate() const {
  if (!uses_common_factor()) return std::nullopt;
  std::vector<double> factors;
  for (const auto& c : common_)
    if (c) factors.push_back(*c);
  if (factors.size() < 2) return std::nullopt;
  const auto rl = winsorized_location(factors, sample_stddev(factors));
  return Estimate{rl.centre, std::sqrt(rl.variance / rl.n), static_cast<double>(rl.n - 1), rl.n};
}

LogInterval SequentialAb::bounds_at(const Series& s, const Estimate& e, double nominal) const {
  if (!uses_common_factor()) {
    const Interval ci = walsh_ci(residuals(s), 1 - 2 * nominal);
    return {ci.low, ci.high};
  }
  const double q = student_t_quantile(1 - nominal, e.df);
  return {e.centre - q * e.se, e.centre + q * e.se};
}

Comparison SequentialAb::measured(const std::string& name, const Series& s, const Estimate& e) const {
  Comparison c;
  c.name = name;
  c.family = s.family;
  c.tau = s.tau;
  c.tested = true;
  c.baseline_count = c.current_count = e.n;  // pairs, the unit
  c.baseline_samples = s.a_samples;
  c.current_samples = s.b_samples;
  c.cv_baseline = summarize(s.a_samples).cv;
  c.cv_current = summarize(s.b_samples).cv;
  c.change = std::expm1(e.centre);
  const double t = e.se > 0 ? e.centre / e.se : 0;
  c.p = e.se > 0 ? 2 * student_t_cdf(-std::abs(t), e.df) : (e.centre == 0 ? 1.0 : 0.0);
  const double q95 = student_t_quantile(0.975, e.df);
  c.change_low = std::expm1(e.centre - q95 * e.se);
  c.change_high = std::expm1(e.centre + q95 * e.se);
  // The interval at the plan's level for this look (the last look reached, where this one
  // has none): what FAIL, IMPROVED and PASS are read from.
  const int look = std::clamp(pairs_, plan_.boundary.first, std::max(plan_.boundary.first, plan_.boundary.last));
  if (!uses_common_factor()) {
    // A few benchmarks: nothing to pool a scale with, so Tukey's distribution-free interval
    // of the pair differences (exact where they are symmetric, which the alternating order
    // gives a drift): one stray pair cannot widen it as it widens a t interval.
    const auto r = residuals(s);
    c.change = std::expm1(walsh_median(r));
    const Interval ci = walsh_ci(r, 0.95);
    c.change_low = std::expm1(ci.low);
    c.change_high = std::expm1(ci.high);
    c.p = wilcoxon_signed_rank_p(r);
  }
  if (plan_.has_look(look)) {
    const double nominal = plan_.boundary.nominal(look);
    const LogInterval b = bounds_at(s, e, nominal);
    c.decision_low = std::expm1(b.low);
    c.decision_high = std::expm1(b.high);
    // The smallest change that FAILs at this noise: beyond tau, and beyond the interval's half-width.
    c.minimum_detectable = std::expm1(std::max(std::log1p(c.tau), (b.high - b.low) / 2));
    // Below alpha exactly where the look's interval excludes 0.
    c.p_holm = std::min(1.0, c.p * plan_.alpha / (2 * nominal));
  }
  return c;
}

void SequentialAb::look() {
  const auto est = estimates();
  const auto total_text = [&](const Estimate& e) {
    if (!uses_common_factor()) return std::string();
    const auto suite = suite_estimate();
    return suite ? fmt::format(" (relative to the suite; with its shift of {} the total is {})", log_percent(suite->centre),
                               log_percent(e.centre + suite->centre))
                 : std::string();
  };
  for (auto& [name, s] : series_) {
    const auto it = est.find(name);
    if (it == est.end()) continue;
    s.scale = it->second.se * std::sqrt(it->second.n);
    if (s.decided || it->second.n < AbPlan::kFirstLook) continue;
    Comparison c = measured(name, s, it->second);
    const LogInterval pass = bounds_at(s, it->second, plan_.pass_boundary.nominal(std::min(pairs_, plan_.pass_boundary.last)));
    const auto v = verdict_of(std::log1p(c.change), {std::log1p(c.decision_low), std::log1p(c.decision_high)}, pass, c.tau);
    if (!v) continue;  // neither: another pair
    const std::string why =
        fmt::format("after {} pairs its interval at the plan's level (alpha {} over {} questions and {} pairs) is [{}, {}]",
                    it->second.n, plan_.alpha, plan_.questions, plan_.max_pairs, percent(c.decision_low),
                    percent(c.decision_high));
    const std::string own = total_text(it->second);
    c.verdict = *v;
    if (*v == Verdict::fail)
      c.reason = fmt::format("slower by {}{}, beyond the {:.0f}% threshold: a real change, {}, clear of 0",
                             percent(c.change), own, 100 * c.tau, why);
    else if (*v == Verdict::improved)
      c.reason = fmt::format("faster by {}{}, beyond -{:.0f}%: a real change, {}, clear of 0", percent(-c.change), own,
                             100 * c.tau, why);
    else
      c.reason = fmt::format("within +-{:.0f}%{}: after {} pairs its interval at the PASS side's level (5% a benchmark, "
                             "spent over the looks) is [{}, {}]", 100 * c.tau, own, it->second.n,
                             log_percent(pass.low), log_percent(pass.high));
    s.decided = c;
  }
  if (!suite_decided_) {
    auto shift = suite_shift();
    if (shift.verdict != Verdict::unresolved) suite_decided_ = shift;
  }
}

SuiteShift SequentialAb::suite_shift() const {
  SuiteShift shift;
  shift.benchmarks = plan_.benchmarks;
  shift.baseline_runs = pairs_;
  if (!uses_common_factor()) {
    shift.reason = fmt::format("{} benchmark(s), fewer than {}: no factor shared by the pair is taken out, each "
                               "benchmark's change is its total",
                               plan_.benchmarks, kMinForCommonFactor);
    return shift;
  }
  if (suite_decided_) return *suite_decided_;
  shift.estimated = true;
  double tau = std::numeric_limits<double>::infinity();
  for (const auto& [name, s] : series_) tau = std::min(tau, s.tau);
  if (!std::isfinite(tau)) tau = config_.tau_kernel;
  const auto e = suite_estimate();
  shift.verdict = Verdict::unresolved;
  if (!e) {
    shift.reason = "fewer than 2 pairs with a common factor";
    return shift;
  }
  shift.run_spread = e->se * std::sqrt(e->n);
  shift.change = std::expm1(e->centre);
  const double q95 = student_t_quantile(0.975, std::max(1.0, e->df));
  shift.change_low = std::expm1(e->centre - q95 * e->se);
  shift.change_high = std::expm1(e->centre + q95 * e->se);
  const int look = std::min(pairs_, plan_.boundary.last);
  if (!plan_.has_look(look) || e->n < AbPlan::kFirstLook) {
    shift.reason = fmt::format("B against A over the whole suite {} [{}, {}] (95%), {} pairs: too few to decide",
                               percent(shift.change), percent(shift.change_low), percent(shift.change_high), e->n);
    return shift;
  }
  const double q = student_t_quantile(1 - plan_.boundary.nominal(look), e->df);
  const LogInterval b{e->centre - q * e->se, e->centre + q * e->se};
  const double q_pass = student_t_quantile(1 - plan_.pass_boundary.nominal(look), e->df);
  const LogInterval pass{e->centre - q_pass * e->se, e->centre + q_pass * e->se};
  const std::string why = fmt::format("the mean of {} pairs' common factors (the drift within a pair cancels over the "
                                      "alternating order; sd {} a pair) is {}, interval at the plan's level [{}, {}]",
                                      e->n, log_percent(shift.run_spread).substr(1), percent(shift.change),
                                      log_percent(b.low), log_percent(b.high));
  const auto v = verdict_of(e->centre, b, pass, tau);
  shift.verdict = v.value_or(Verdict::unresolved);
  if (!v)
    shift.reason = fmt::format("B against A over the whole suite: {}; it straddles +-{:.0f}%, more pairs narrow it", why,
                               100 * tau);
  else if (*v == Verdict::fail)
    shift.reason = fmt::format("build B is slower over the whole suite: {}, above {:.0f}%: both builds ran on this "
                               "machine in alternation, so this is B's, not the machine's",
                               why, 100 * tau);
  else if (*v == Verdict::improved)
    shift.reason = fmt::format("build B is faster over the whole suite: {}, below -{:.0f}%", why, 100 * tau);
  else
    shift.reason = fmt::format("no suite-wide change beyond +-{:.0f}%: {}", 100 * tau, why);
  return shift;
}

std::vector<std::string> SequentialAb::undecided() const {
  std::vector<std::string> names;
  for (const auto& [name, s] : series_)
    if (!s.decided) names.push_back(name);
  return names;
}

bool SequentialAb::suite_decided() const { return !uses_common_factor() || suite_decided_.has_value(); }

std::vector<std::string> SequentialAb::to_run() const {
  auto names = undecided();
  if (!uses_common_factor() || (names.empty() && suite_decided()) || static_cast<int>(names.size()) >= kPanel)
    return names;
  // The panel: decided benchmarks still measured, PASS first, the quietest first.
  std::vector<std::pair<std::pair<int, double>, std::string>> decided;
  for (const auto& [name, s] : series_)
    if (s.decided && !s.decided->broken && !s.diffs.empty() && s.diffs.rbegin()->first == pairs_)
      decided.push_back({{s.decided->verdict == Verdict::pass ? 0 : 1, s.scale}, name});
  std::sort(decided.begin(), decided.end());
  for (const auto& [key, name] : decided) {
    if (static_cast<int>(names.size()) >= kPanel) break;
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool SequentialAb::done() const {
  return pairs_ > 0 && ((undecided().empty() && suite_decided()) || pairs_ >= max_pairs_);
}

GateReport SequentialAb::report(const std::string& a_origin, const std::string& b_origin) const {
  GateReport report;
  report.baseline_origin = a_origin;
  report.current_origin = b_origin;
  report.config = config_;
  report.interval_label = "sequential CI";
  report.p_label = "p (adj.)";
  report.correction = "spent over benchmarks and looks";
  report.suite_shift = suite_shift();
  const auto est = estimates();
  for (const auto& [name, s] : series_) {
    if (s.decided) {
      report.comparisons.push_back(*s.decided);
      continue;
    }
    Comparison c;
    const auto it = est.find(name);
    if (it != est.end() && it->second.n >= 2) {
      c = measured(name, s, it->second);
      if (pairs_ < AbPlan::kFirstLook)
        c.reason = fmt::format("undecided: {} pairs, and the first look is at {}: give a larger --budget or --blocks",
                               it->second.n, AbPlan::kFirstLook);
      else if (!plan_.has_look(AbPlan::kFirstLook))
        c.reason = fmt::format("undecided: the plan holds {} pairs and the first look needs {}: give a larger --budget "
                               "or --blocks",
                               plan_.max_pairs, AbPlan::kFirstLook);
      else
        c.reason = fmt::format("undecided after {} pairs: interval at the plan's level [{}, {}] straddles +-{:.0f}%; "
                               "at this noise it resolves about +-{}, more pairs narrow it",
                               it->second.n, percent(c.decision_low), percent(c.decision_high), 100 * c.tau,
                               std::isfinite(c.minimum_detectable) ? percent(c.minimum_detectable).substr(1)
                                                                   : std::string("nothing yet"));
    } else {
      c.name = name;
      c.family = s.family;
      c.reason = "fewer than 2 pairs with samples of both builds";
    }
    c.verdict = Verdict::unresolved;
    report.comparisons.push_back(c);
  }
  for (const auto& c : one_sided_) report.comparisons.push_back(c);
  return report;
}

}  // namespace rooftop
