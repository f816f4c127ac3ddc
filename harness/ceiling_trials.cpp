#include "harness/ceiling_trials.hpp"

#include <algorithm>

namespace rooftop {

TrialPlan default_trial_plan(bool quick) {
  if (quick) return {8, 20, 0.05};
  return {};
}

double best_value(const std::vector<double>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

double best_two_spread(const std::vector<double>& values) {
  if (values.size() < 2) return -1;
  std::vector<double> v = values;
  std::partial_sort(v.begin(), v.begin() + 2, v.end(), std::greater<>());
  return v[0] > 0 ? (v[0] - v[1]) / v[0] : -1;
}

bool best_two_agree(const std::vector<double>& values, double tolerance) {
  const double spread = best_two_spread(values);
  return spread >= 0 && spread <= tolerance;
}

double dram_min_span_s(bool quick) { return quick ? 4 : 10; }

namespace {
bool spread_enough(const CeilingTrials& t) {
  return t.min_span_s <= 0 || (t.clean_at_s.size() >= 2 && t.clean_at_s.back() - t.clean_at_s.front() >= t.min_span_s);
}
}  // namespace

bool only_spread_left(const std::vector<CeilingTrials>& trials) {
  bool any = false;
  for (const auto& t : trials) {
    if (t.settled) continue;
    if (t.min_span_s <= 0 || spread_enough(t)) return false;
    any = true;
  }
  return any;
}

bool another_round(std::vector<CeilingTrials>& trials, int rounds_done, double elapsed_s, const TrialPlan& plan) {
  bool unsettled = false;
  for (auto& t : trials) {
    t.settled = best_two_agree(t.clean_values, plan.tolerance) && spread_enough(t);
    for (const auto& outer : trials)
      if (!t.at_least.empty() && outer.name == t.at_least && best_value(t.values) < best_value(outer.values))
        t.settled = false;
    unsettled = unsettled || !t.settled;
  }
  return unsettled && rounds_done < plan.max_rounds && elapsed_s < plan.time_bound_s;
}

bool threads_overlapped(const std::vector<ThreadSpan>& spans, double share) {
  if (spans.size() < 2) return true;
  double first_start = spans[0].start, last_start = spans[0].start, first_end = spans[0].end, last_end = spans[0].end;
  for (const auto& s : spans) {
    first_start = std::min(first_start, s.start);
    last_start = std::max(last_start, s.start);
    first_end = std::min(first_end, s.end);
    last_end = std::max(last_end, s.end);
  }
  const double whole = last_end - first_start;
  return whole <= 0 || first_end - last_start >= share * whole;
}

nlohmann::ordered_json trials_to_json(const std::vector<CeilingTrials>& trials, const TrialPlan& plan, int rounds,
                                      double elapsed_s) {
  nlohmann::ordered_json j;
  j["tolerance"] = plan.tolerance;
  j["max_rounds"] = plan.max_rounds;
  j["time_bound_s"] = plan.time_bound_s;
  j["rounds"] = rounds;
  j["elapsed_s"] = elapsed_s;
  j["ceilings"] = nlohmann::ordered_json::array();
  for (const auto& t : trials) {
    const double spread = best_two_spread(t.values);
    j["ceilings"].push_back({{"name", t.name},
                             {"values", t.values},
                             {"clean_values", t.clean_values},
                             {"best", best_value(t.values)},
                             {"spread", spread >= 0 ? nlohmann::ordered_json(spread) : nlohmann::ordered_json(nullptr)},
                             {"settled", t.settled}});
    if (t.min_span_s > 0) {
      j["ceilings"].back()["min_span_s"] = t.min_span_s;
      j["ceilings"].back()["clean_at_s"] = t.clean_at_s;
    }
  }
  return j;
}

}  // namespace rooftop
