#include "harness/ab_sequential.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "harness/gate_statistics.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

std::string percent(double x) { return std::isfinite(x) ? fmt::format("{:+.1f}%", 100 * x) : "unbounded"; }

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
  c.reason = fmt::format("build B's run in pair {} {}: {}", pair,
                         r.status == Status::failed ? "failed its correctness check" : "errored", r.reason);
  return c;
}
}  // namespace

double LookPlan::side_alpha(std::size_t look) const {
  const double j = static_cast<double>(look);
  return alpha / (benchmarks * (j + 1) * (j + 2));
}

LookPlan plan_looks(double alpha, int benchmarks, int max_pairs) {
  LookPlan plan{alpha, std::max(1, benchmarks), {}};
  // The exact interval of n differences reaches two-sided level 1 - 2a only when all n
  // one way is rarer than 2a: 2 / 2^n <= 2a. A look before that could decide nothing.
  int n = 1;
  while (std::ldexp(1.0, -n) > plan.side_alpha(0) && n < max_pairs) ++n;
  for (std::size_t j = 0; n <= max_pairs; ++j) {
    while (std::ldexp(1.0, -n) > plan.side_alpha(j) && n <= max_pairs) ++n;  // later looks spend less
    if (n > max_pairs) break;
    plan.looks.push_back(n);
    n = std::max(n + 1, static_cast<int>(std::ceil(n * 1.25)));
  }
  return plan;
}

SequentialAb::SequentialAb(GateConfig config, int max_pairs) : config_(std::move(config)), max_pairs_(max_pairs) {}

void SequentialAb::add_pair(const RunResults& a, const RunResults& b) {
  ++pairs_;
  const auto in_a = by_name(a), in_b = by_name(b);
  if (pairs_ == 1) {
    // The first pair runs every point and sets what is compared: the plan's m.
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
        series_[name].family = r->problem.family;
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
  for (auto& [name, s] : series_) {
    if (s.decided) continue;
    const auto ra = in_a.find(name), rb = in_b.find(name);
    if (rb != in_b.end() && broken(*rb->second)) {  // a failed check outweighs any timing
      s.decided = fail_of_broken(name, s.family, *rb->second, pairs_);
      continue;
    }
    if (ra == in_a.end() || rb == in_b.end() || !usable(*ra->second) || !usable(*rb->second)) {
      // Not measured in the first pair (skipped, or build A's failed its check): later pairs
      // would not measure it either, so it waits for nothing.
      if (pairs_ == 1) {
        const auto& r = ra != in_a.end() && !usable(*ra->second) ? *ra->second : *rb->second;
        Comparison c;
        c.name = name;
        c.family = s.family;
        c.verdict = Verdict::unresolved;
        c.reason = fmt::format("not measured in build {}'s first run: {}: {}", &r == ra->second ? 'A' : 'B',
                               r.status == Status::skipped ? "skipped" : "failed", r.reason);
        s.decided = c;
      }
      continue;
    }
    const auto sa = ra->second->seconds(), sb = rb->second->seconds();
    s.diffs.push_back(std::log(median(sb)) - std::log(median(sa)));
    s.a_samples.insert(s.a_samples.end(), sa.begin(), sa.end());
    s.b_samples.insert(s.b_samples.end(), sb.begin(), sb.end());
  }
  // The plan's m: the benchmarks the first pair measured on both sides, the ones tested.
  if (pairs_ == 1) plan_ = plan_looks(config_.alpha, static_cast<int>(undecided().size()), max_pairs_);
  if (next_look_ < plan_.looks.size() && pairs_ >= plan_.looks[next_look_]) look();
}

Comparison SequentialAb::measured(const std::string& name, const Series& s, std::size_t j) const {
  Comparison c;
  c.name = name;
  c.family = s.family;
  c.tau = config_.tau_for(name, s.family);
  c.baseline_count = c.current_count = static_cast<int>(s.diffs.size());  // pairs, the unit
  c.baseline_samples = s.a_samples;
  c.current_samples = s.b_samples;
  c.cv_baseline = summarize(s.a_samples).cv;
  c.cv_current = summarize(s.b_samples).cv;
  c.change = std::expm1(walsh_median(s.diffs));
  const double level = 1 - 2 * plan_.side_alpha(j);
  const Interval ci = walsh_ci(s.diffs, level);
  c.change_low = std::expm1(ci.low);
  c.change_high = std::expm1(ci.high);
  c.p = wilcoxon_signed_rank_p(s.diffs);
  // Adjusted for the benchmarks and the looks: below alpha exactly when p < 2 a_j.
  c.p_holm = std::min(1.0, c.p * config_.alpha / (2 * plan_.side_alpha(j)));
  return c;
}

void SequentialAb::look() {
  const std::size_t j = next_look_++;
  const double level = 1 - 2 * plan_.side_alpha(j);
  for (auto& [name, s] : series_) {
    if (s.decided || s.diffs.size() < 2) continue;
    Comparison c = measured(name, s, j);
    const double tau = c.tau;
    const std::string why = fmt::format("after {} pairs its {:.4g}% interval (alpha {} spent over {} benchmarks and look {}) is "
                                        "[{}, {}]",
                                        s.diffs.size(), 100 * level, config_.alpha, plan_.benchmarks, j + 1,
                                        percent(c.change_low), percent(c.change_high));
    if (c.change_low > tau) {
      c.verdict = Verdict::fail;
      c.reason = fmt::format("slower by {}: {}, above the {:.0f}% threshold", percent(c.change), why, 100 * tau);
    } else if (c.change_high < -tau) {
      c.verdict = Verdict::improved;
      c.reason = fmt::format("faster by {}: {}, below -{:.0f}%", percent(-c.change), why, 100 * tau);
    } else if (c.change_low > -tau && c.change_high < tau) {
      c.verdict = Verdict::pass;
      c.reason = fmt::format("within +-{:.0f}%: {}", 100 * tau, why);
    } else {
      continue;  // straddles the band: another pair
    }
    s.decided = c;
  }
}

std::vector<std::string> SequentialAb::undecided() const {
  std::vector<std::string> names;
  for (const auto& [name, s] : series_)
    if (!s.decided) names.push_back(name);
  return names;
}

bool SequentialAb::done() const {
  return pairs_ > 0 && (undecided().empty() || next_look_ >= plan_.looks.size() || pairs_ >= max_pairs_);
}

GateReport SequentialAb::report(const std::string& a_origin, const std::string& b_origin) const {
  GateReport report;
  report.baseline_origin = a_origin;
  report.current_origin = b_origin;
  report.config = config_;
  report.interval_label = "sequential CI";
  report.p_label = "p (adj.)";
  report.correction = "spent over benchmarks and looks";
  for (const auto& [name, s] : series_) {
    if (s.decided) {
      report.comparisons.push_back(*s.decided);
      continue;
    }
    Comparison c;
    if (s.diffs.size() >= 2) {
      // Read at the last look's level (or the first's, where none was reached).
      const std::size_t j = next_look_ > 0 ? next_look_ - 1 : 0;
      c = measured(name, s, j);
      const double half = (std::log1p(c.change_high) - std::log1p(c.change_low)) / 2;
      c.minimum_detectable = std::isfinite(half) ? std::expm1(half) : std::numeric_limits<double>::infinity();
      c.reason = next_look_ == 0
                     ? fmt::format("undecided: {} pairs, and the first look needs {} (alpha {} over {} benchmarks): "
                                   "give a larger --budget or --blocks, or fewer benchmarks",
                                   s.diffs.size(), plan_looks(config_.alpha, plan_.benchmarks, 100000).looks.front(), config_.alpha,
                                   plan_.benchmarks)
                     : fmt::format("undecided after {} pairs: interval [{}, {}] straddles +-{:.0f}%; at this noise it "
                                   "resolves about +-{}, more pairs narrow it",
                                   s.diffs.size(), percent(c.change_low), percent(c.change_high), 100 * c.tau,
                                   percent(c.minimum_detectable).substr(1));
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
