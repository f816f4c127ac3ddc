#include "harness/name_filter.hpp"
#include "harness/registry.hpp"
#include "harness/gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "harness/errors.hpp"
#include "harness/gate_decision.hpp"
#include "harness/noise_model.hpp"
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

std::string percent(double x) { return std::isfinite(x) ? fmt::format("{:+.1f}%", 100 * x) : "inf"; }

// One run's samples on each side: their Hodges-Lehmann locations, and the repetitions'
// noise of each as the within-run part of the model.
ModelInput repetition_input(Comparison& c) {
  // A run whose samples are all equal shows no tick of its own; both runs' values do.
  std::vector<double> all(c.baseline_samples);
  all.insert(all.end(), c.current_samples.begin(), c.current_samples.end());
  const double tick = timer_tick(all);
  const auto base = run_location(c.baseline_samples, tick), cur = run_location(c.current_samples, tick);
  c.cv_baseline = summarize(c.baseline_samples).cv;
  c.cv_current = summarize(c.current_samples).cv;
  ModelInput in;
  in.baseline = {base.location};
  in.current = cur.location;
  in.within = base.variance + cur.variance;
  in.floor = std::max(base.floor, cur.floor);
  return in;
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
  number("drift_prior", c.drift_prior, 0, 10);
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

RunResults with_reruns(const RunResults& run, const RunResults& rerun) {
  std::map<std::string, const ResultRecord*> again;
  for (const auto& r : rerun.results) again[r.problem.name()] = &r;
  RunResults merged = run;
  for (auto& r : merged.results)
    if (const auto it = again.find(r.problem.name()); it != again.end()) r = *it->second;
  return merged;
}

bool Comparison::unresolved_above_tau() const {
  return verdict == Verdict::unresolved && compared() && std::log1p(change_low) > std::log1p(tau);
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
  std::vector<std::size_t> tested;  // comparisons the model decides
  std::vector<ModelInput> inputs;
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
        inputs.push_back(repetition_input(c));
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
  decide_by_model(report, tested, inputs, 1);
  return report;
}

}  // namespace rooftop
