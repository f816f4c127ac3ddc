#include "harness/name_filter.hpp"
#include "harness/registry.hpp"
#include "harness/gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "harness/errors.hpp"
#include "harness/gate_statistics.hpp"
#include "harness/json_file.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

double median_clock(const ResultRecord& r) {
  std::vector<double> c;
  for (const auto& x : r.samples)
    if (x.clock_mhz > 0) c.push_back(x.clock_mhz);
  return c.empty() ? 0.0 : median(c);
}

std::vector<double> logs(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v) out.push_back(std::log(x));
  return out;
}

double pooled_sd(const std::vector<double>& a, const std::vector<double>& b) {
  const double sa = sample_stddev(a), sb = sample_stddev(b);
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  if (na + nb <= 2) return 0;
  return std::sqrt(((na - 1) * sa * sa + (nb - 1) * sb * sb) / (na + nb - 2));
}

// The repetitions per side at which complete separation can reach `alpha`.
int repetitions_needed(double alpha) {
  for (int n = 2; n <= 60; ++n)
    if (smallest_mann_whitney_p(n, n) < alpha) return n;
  return 60;
}

std::string percent(double x) { return std::isfinite(x) ? fmt::format("{:+.1f}%", 100 * x) : "inf"; }

// Measures one benchmark present on both sides with usable samples.
void measure_change(Comparison& c) {
  const auto lx = logs(c.baseline_samples), ly = logs(c.current_samples);
  const double shift = hodges_lehmann_shift(lx, ly);
  // The exact distribution-free interval: one partial sort, where a bootstrap of the same
  // estimator took 2000 of them (50,000 benchmarks took minutes: issue 19).
  const auto ci = hodges_lehmann_ci(lx, ly, 0.95);
  c.change = std::expm1(shift);
  c.change_low = std::expm1(ci.low);
  c.change_high = std::expm1(ci.high);
  c.p = mann_whitney_p(lx, ly);
  c.cv_baseline = summarize(c.baseline_samples).cv;
  c.cv_current = summarize(c.current_samples).cv;
}

// What the test could detect: the smallest change it reaches significance for at this
// noise, or why it cannot reach significance at all with these counts.
struct Power {
  double minimum_detectable = std::numeric_limits<double>::infinity();
  bool can_reach = false;
  std::string how_to_reach;  // e.g. "use --repetitions 12 or more"
  int repetitions_for_tau = 0;  // per side, to detect tau at this noise (0: not computed)
};

Power two_sample_power(const Comparison& c, double strictest) {
  Power p;
  const double sd = pooled_sd(logs(c.baseline_samples), logs(c.current_samples));
  p.can_reach = smallest_mann_whitney_p(c.baseline_count, c.current_count) < strictest;
  p.minimum_detectable = p.can_reach ? std::expm1(minimum_detectable_log_shift(sd, c.baseline_count, c.current_count, strictest))
                                     : std::numeric_limits<double>::infinity();
  // Repetitions per side at which this noise would resolve tau (the detectable shift
  // shrinks as sqrt(2 / n)).
  const double at_two = minimum_detectable_log_shift(sd, 2, 2, strictest);
  p.repetitions_for_tau = std::max(repetitions_needed(strictest),
                                   static_cast<int>(std::ceil(2.0 * std::pow(at_two / std::log1p(c.tau), 2))));
  p.how_to_reach = fmt::format("{} vs {} repetitions cannot reach p < {:.2g}: use --repetitions {} or more", c.baseline_count,
                               c.current_count, strictest, repetitions_needed(strictest));
  return p;
}

void decide(Comparison& c, const GateConfig& config, int tests, const Power& power) {
  const double tau = std::log1p(c.tau);
  const double low = std::log1p(c.change_low), high = std::log1p(c.change_high);
  c.minimum_detectable = power.minimum_detectable;
  const std::string stats = fmt::format("change {} [{}, {}], p {:.2g} (Holm {:.2g})", percent(c.change),
                                        percent(c.change_low), percent(c.change_high), c.p, c.p_holm);
  // FAIL and IMPROVED: significant after Holm, and the whole 95% interval beyond tau, so
  // that a true change of exactly tau is not a coin toss. A FAIL is a FAIL even where the
  // clocks moved: a regression may be what lowered them.
  const bool significant = c.p_holm < config.alpha;
  const bool fail = significant && low >= tau, improved = significant && high <= -tau;
  if (fail) {
    c.verdict = Verdict::fail;
    c.reason = fmt::format("slower by {}: its 95% interval lies above the {:.0f}% threshold; {}{}", percent(c.change),
                           100 * c.tau, stats,
                           c.clock_differs ? fmt::format("; clock {:.0f} MHz vs baseline {:.0f} MHz: the slowdown may "
                                                         "be the clock's", c.clock_current, c.clock_baseline)
                                           : "");
  } else if (c.clock_differs) {
    c.verdict = Verdict::unresolved;
    c.reason = fmt::format("clock {:.0f} MHz vs baseline {:.0f} MHz (more than {:.0f}% apart): samples not comparable; {}",
                           c.clock_current, c.clock_baseline, 100 * config.clock_tolerance, stats);
  } else if (improved) {
    c.verdict = Verdict::improved;
    c.reason = fmt::format("faster by {}: its 95% interval lies below -{:.0f}%; {}", percent(-c.change), 100 * c.tau, stats);
  } else if (high < tau) {
    c.verdict = Verdict::pass;
    c.reason = fmt::format("slowdown below {:.0f}% with 95% confidence; {}", 100 * c.tau, stats);
  } else {
    c.verdict = Verdict::unresolved;
    c.reason = power.can_reach
                   ? fmt::format("cannot tell a {:.0f}% slowdown from noise: {}; CV {:.1f}% / {:.1f}%; "
                                 "detectable change at this noise: {}{}", 100 * c.tau, stats, 100 * c.cv_baseline,
                                 100 * c.cv_current, percent(c.minimum_detectable),
                                 power.repetitions_for_tau > 0
                                     ? fmt::format(" (about {} repetitions per side would resolve {:.0f}%)",
                                                   power.repetitions_for_tau, 100 * c.tau)
                                     : "")
                   : fmt::format("{} ({} benchmarks, alpha {}); {}", power.how_to_reach, tests, config.alpha, stats);
  }
}

// Holm across the comparisons that got a p-value, then a verdict for each. (Intervals
// adjusted by the false coverage rate instead of Holm were measured on the development
// VM's drifting runs and gave more false alarms there: docs/PERFORMANCE.md.)
template <typename PowerOf>
void adjust_and_decide(GateReport& report, const std::vector<std::size_t>& tested, PowerOf power_of) {
  std::vector<double> p;
  for (auto i : tested) p.push_back(report.comparisons[i].p);
  const auto adjusted = holm_adjust(p);
  const int tests = static_cast<int>(tested.size());
  for (std::size_t k = 0; k < tested.size(); ++k) {
    auto& c = report.comparisons[tested[k]];
    c.p_holm = adjusted[k];
    decide(c, report.config, tests, power_of(c, report.config.alpha / tests));
  }
}
}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::fail: return "FAIL";
    case Verdict::improved: return "IMPROVED";
    case Verdict::unresolved: return "UNRESOLVED";
    case Verdict::added: return "NEW";
    case Verdict::missing: return "MISSING";
  }
  return "?";
}

double GateConfig::tau_for(const std::string& name, const std::string& family) const {
  for (const auto& o : overrides)
    if (o.filter->matches(name)) return o.tau;
  // Whole systems (ranks in lockstep, scenarios) vary more run to run than one kernel.
  const Family* f = family_named(family);
  return f && f->measurement != Measurement::kernel_loop ? tau_system : tau_kernel;
}

GateConfig load_gate_config(const std::filesystem::path& path) {
  const auto j = read_json_file(path, "gate config");
  GateConfig c;
  auto number = [&](const char* key, double& into, double lo, double hi) {
    if (!j.contains(key)) return;
    if (!j[key].is_number() || j[key].get<double>() < lo || j[key].get<double>() > hi)
      throw InputError(fmt::format("{}: field '{}' must be a number in [{}, {}]", path.string(), key, lo, hi));
    into = j[key].get<double>();
  };
  number("alpha", c.alpha, 1e-12, 0.5);
  number("tau_kernel", c.tau_kernel, 0, 10);
  number("tau_system", c.tau_system, 0, 10);
  number("clock_tolerance", c.clock_tolerance, 0, 10);
  double reps = c.min_repetitions;
  number("min_repetitions", reps, 2, 1000);
  c.min_repetitions = static_cast<int>(reps);
  double runs = c.min_baseline_runs;
  number("min_baseline_runs", runs, 2, 1000);
  c.min_baseline_runs = static_cast<int>(runs);
  if (j.contains("overrides")) {
    if (!j["overrides"].is_array()) throw InputError(path.string() + ": field 'overrides' must be an array");
    for (std::size_t i = 0; i < j["overrides"].size(); ++i) {
      const auto& o = j["overrides"][i];
      const std::string field = fmt::format("overrides[{}]", i);
      if (!o.is_object() || !o.contains("match") || !o["match"].is_string() || !o.contains("tau") || !o["tau"].is_number())
        throw InputError(fmt::format("{}: field '{}' needs a string 'match' and a number 'tau'", path.string(), field));
      const auto match = o["match"].get<std::string>();
      c.overrides.push_back({match, std::make_shared<NameFilter>(match, fmt::format("{}: field '{}.match'", path.string(), field)),
                             o["tau"].get<double>()});
    }
  }
  return c;
}

Comparison current_side(const ResultRecord& current, const GateConfig& config) {
  Comparison c;
  c.name = current.problem.name();
  c.family = current.problem.family;
  c.tau = config.tau_for(c.name, c.family);
  c.current_samples = current.seconds();
  c.current_count = static_cast<int>(c.current_samples.size());
  return c;
}

bool settle_broken_point(Comparison& c, const ResultRecord& current) {
  if (current.status == Status::failed || current.status == Status::error) {
    c.verdict = Verdict::fail;
    c.broken = true;
    c.reason = fmt::format("the run {}: {}", current.status == Status::failed ? "failed its correctness check" : "errored",
                           current.reason);
  } else if (current.status != Status::ok) {
    c.verdict = Verdict::unresolved;
    c.reason = fmt::format("no measurement to compare: run {}{}", status_name(current.status),
                           current.reason.empty() ? "" : " (" + current.reason + ")");
  } else {
    return false;
  }
  return true;
}

void confirm_failures(GateReport& report, const std::vector<GateReport>& reruns) {
  for (auto& c : report.comparisons) {
    if (c.verdict != Verdict::fail || c.broken) continue;
    for (const auto& rerun : reruns) {
      const auto again = std::find_if(rerun.comparisons.begin(), rerun.comparisons.end(), [&](const Comparison& r) {
        return r.name == c.name && r.tested;
      });
      if (again == rerun.comparisons.end() || again->verdict == Verdict::fail) continue;
      c.verdict = Verdict::unresolved;
      c.reason = fmt::format("a FAIL in {} ({}) that {} does not repeat ({}, {}): one run's outlier, or a slowdown too "
                             "small to show in every run; {}", report.current_origin, percent(c.change), rerun.current_origin,
                             verdict_name(again->verdict), percent(again->change), c.reason);
      break;
    }
  }
}

bool Comparison::unresolved_above_tau() const {
  return verdict == Verdict::unresolved && tested && std::log1p(change_low) > std::log1p(tau);
}

int GateReport::count_unresolved_above_tau() const {
  int n = 0;
  for (const auto& c : comparisons) n += c.unresolved_above_tau();
  return n;
}

int GateReport::count(Verdict v) const {
  int n = 0;
  for (const auto& c : comparisons) n += c.verdict == v;
  return n;
}

GateReport gate_results(const RunResults& baseline, const RunResults& current, const GateConfig& config,
                        const std::string& baseline_origin, const std::string& current_origin) {
  GateReport report;
  report.baseline_origin = baseline_origin;
  report.current_origin = current_origin;
  report.config = config;
  std::map<std::string, const ResultRecord*> base;
  for (const auto& r : baseline.results) base[r.problem.name()] = &r;
  std::vector<std::size_t> tested;  // comparisons that get a p-value
  for (const auto& cur : current.results) {
    Comparison c = current_side(cur, config);
    const auto it = base.find(c.name);
    if (it == base.end()) {
      c.verdict = Verdict::added;
      c.reason = "not in the baseline";
    } else {
      const auto& b = *it->second;
      base.erase(it);
      c.baseline_samples = b.seconds();
      c.baseline_count = static_cast<int>(c.baseline_samples.size());
      c.clock_baseline = median_clock(b);
      c.clock_current = median_clock(cur);
      c.clock_differs = c.clock_baseline > 0 && c.clock_current > 0 &&
                        std::fabs(c.clock_current / c.clock_baseline - 1) > config.clock_tolerance;
      if (settle_broken_point(c, cur)) {
        // a verdict already, and why
      } else if (b.status != Status::ok) {
        c.reason = fmt::format("no measurement to compare: the baseline's point is {}", status_name(b.status));
      } else if (c.baseline_count < config.min_repetitions || c.current_count < config.min_repetitions) {
        c.reason = fmt::format("{} baseline and {} current repetitions: at least {} per side are needed",
                               c.baseline_count, c.current_count, config.min_repetitions);
      } else {
        measure_change(c);
        c.tested = true;
        tested.push_back(report.comparisons.size());
      }
    }
    report.comparisons.push_back(std::move(c));
  }
  for (const auto& [name, b] : base) {
    Comparison c;
    c.name = name;
    c.family = b->problem.family;
    c.verdict = Verdict::missing;
    c.reason = "in the baseline but not in this run";
    c.baseline_samples = b->seconds();
    c.baseline_count = static_cast<int>(c.baseline_samples.size());
    report.comparisons.push_back(std::move(c));
  }
  adjust_and_decide(report, tested, two_sample_power);
  return report;
}

}  // namespace rooftop
