#include "harness/history_check.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "harness/gate_statistics.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

// The series of one suite (device and tier) on a shared calendar of nights.
struct Suite {
  std::vector<const HistorySeries*> members;
  std::vector<std::string> nights;  // the runs' creation times, oldest first
};

std::vector<Suite> suites_of(std::span<const HistorySeries> history) {
  std::map<std::pair<std::string, std::string>, Suite> by_key;
  for (const auto& s : history) by_key[{s.fingerprint, s.tier}].members.push_back(&s);
  std::vector<Suite> out;
  for (auto& [key, suite] : by_key) {
    std::set<std::string> nights;
    for (const auto* s : suite.members)
      for (const auto& p : s->points) nights.insert(p.created);
    suite.nights.assign(nights.begin(), nights.end());
    out.push_back(std::move(suite));
  }
  return out;
}

std::vector<double> log_medians(const HistorySeries& s) {
  std::vector<double> v;
  for (const auto& p : s.points) v.push_back(std::log(p.median_s));
  return v;
}

// Each night's factor in log units (0 where too few series ran), and which nights have one.
struct NightFactor {
  std::map<std::string, double> by_night;
  std::vector<HistoryPoint> points;  // the factor as a series (median_s = exp(factor))
};

NightFactor night_factor(const Suite& suite, std::size_t minimum) {
  NightFactor f;
  if (suite.members.size() < minimum) return f;
  std::map<std::string, std::vector<double>> distances;
  std::map<std::string, std::string> commit;
  for (const auto* s : suite.members) {
    const auto logs = log_medians(*s);
    const double centre = median(logs);
    for (std::size_t i = 0; i < logs.size(); ++i) {
      distances[s->points[i].created].push_back(logs[i] - centre);
      commit[s->points[i].created] = s->points[i].git_commit;
    }
  }
  for (const auto& night : suite.nights) {
    const auto& d = distances[night];
    if (d.size() < minimum) continue;
    const double factor = median(d);
    f.by_night[night] = factor;
    f.points.push_back({night, commit[night], std::exp(factor)});
  }
  return f;
}

void test_series(SeriesCheck& c, const HistoryCheckOptions& o) {
  std::vector<double> logs;
  for (const auto& p : c.points) logs.push_back(std::log(p.median_s));
  std::vector<std::size_t> past_indices;
  if (o.find_past)
    for (const auto& cp : find_change_points(logs, o.change_points))
      if (cp.index + o.recent.recent < logs.size()) {
        c.past.push_back(cp);
        past_indices.push_back(cp.index);
      }
  c.recent = test_recent_change(logs, past_indices, o.recent);
}

}  // namespace

HistoryCheck check_history(std::span<const HistorySeries> history, const HistoryCheckOptions& o) {
  HistoryCheck out;
  for (const auto& suite : suites_of(history)) {
    const auto factor = night_factor(suite, o.night_factor_series);
    const auto& first = *suite.members.front();
    if (!factor.points.empty()) {
      out.series.push_back({first.fingerprint, first.tier, "", suite.members.size(), factor.points, {}, {}});
    }
    for (const auto* s : suite.members) {
      SeriesCheck c{s->fingerprint, s->tier, s->benchmark, 0, s->points, {}, {}};
      for (auto& p : c.points) {  // the night's factor taken out: what is left is the benchmark's own
        const auto f = factor.by_night.find(p.created);
        if (f != factor.by_night.end()) p.median_s *= std::exp(-f->second);
      }
      ++out.benchmark_series;
      out.series.push_back(std::move(c));
    }
  }
  // A series whose test cannot reach the level that matters among this many is left out of
  // the adjustment (Tarone 1990): it could never be a discovery.
  HistoryCheckOptions each = o;
  each.recent.smallest_useful_p = o.fdr / static_cast<double>(std::max<std::size_t>(out.series.size(), 1));
  for (auto& c : out.series) test_series(c, each);
  std::vector<double> p;
  std::vector<SeriesCheck*> tested;
  for (auto& c : out.series)
    if (c.recent.tested) {
      p.push_back(c.recent.p);
      tested.push_back(&c);
    }
  const auto q = benjamini_hochberg(p);
  for (std::size_t i = 0; i < tested.size(); ++i) {
    auto& c = *tested[i];
    c.q = q[i];
    c.is_new = c.q < o.fdr;
    c.regression = c.is_new && c.recent.change >= o.tau;
    out.new_changes += c.is_new;
    out.regressions += c.regression;
  }
  for (const auto& c : out.series) out.past_points += static_cast<int>(c.past.size());
  return out;
}

}  // namespace rooftop
