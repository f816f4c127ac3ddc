// `history check` across a suite: seeded simulations of nightly series with known truth
// driven through the real check (harness/history_check.hpp): false changes a suite raises
// per 100 nights, and how soon a real step is found and which night it is said to start on.
#include <catch2/catch.hpp>

#include <cmath>
#include <fmt/format.h>
#include <random>
#include <set>

#include "harness/history_check.hpp"
#include "harness/gate_statistics.hpp"

using namespace rooftop;

namespace {

// A suite's nights: log-time = benchmark level + shared night factor + the benchmark's own
// noise; `spread` per series drawn from [low, high]; heavy tails are Student t with 3
// degrees of freedom scaled to that standard deviation.
struct SuiteShape {
  double spread_low = 0.02, spread_high = 0.02;
  bool heavy_tails = false;
  double shared = 0;  // standard deviation of the night factor every series shares
};

struct Truth {
  std::size_t series = 0, night = 0;  // a step of `step` in one series from `night` on
  double step = 0;
};

class SuiteSimulation {
 public:
  SuiteSimulation(const SuiteShape& shape, std::size_t series, std::size_t nights, const Truth& truth, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> spread(shape.spread_low, shape.spread_high), level(-9, -3);
    std::normal_distribution<double> normal(0, 1);
    std::student_t_distribution<double> t3(3);
    const auto draw = [&] { return shape.heavy_tails ? t3(rng) / std::sqrt(3.0) : normal(rng); };
    std::vector<double> factor(nights);
    for (auto& f : factor) f = shape.shared * draw();
    for (std::size_t s = 0; s < series; ++s) {
      HistorySeries h{"cpu-sim", "quick", fmt::format("bench{:02}", s), {}};
      const double sd = spread(rng), base = level(rng);
      for (std::size_t i = 0; i < nights; ++i) {
        const double step = s == truth.series && truth.step != 0 && i >= truth.night ? std::log1p(truth.step) : 0.0;
        h.points.push_back({fmt::format("2026-{:02}-{:02}T02:00:00Z", 1 + i / 28, 1 + i % 28), fmt::format("c{:03}", i),
                            std::exp(base + factor[i] + sd * draw() + step)});
      }
      full_.push_back(std::move(h));
    }
  }
  // The history as the check saw it after `nights` nights.
  std::vector<HistorySeries> after(std::size_t nights) const {
    auto h = full_;
    for (auto& s : h) s.points.resize(nights);
    return h;
  }

 private:
  std::vector<HistorySeries> full_;
};

HistoryCheckOptions simulation_options(double fdr = 0.01, std::size_t reference = 100) {
  HistoryCheckOptions o;
  o.fdr = fdr;
  o.recent.reference = reference;
  o.find_past = false;  // e-divisive has its own tests; it only narrows the level read before a step
  return o;
}

struct FalseChanges {
  int checks = 0, nights_with_change = 0, nights_with_regression = 0, changes = 0;
  double per_100_nights() const { return 100.0 * changes / checks; }
  double exit1_per_100_nights() const { return 100.0 * nights_with_regression / checks; }
};

// Suites with no step, checked every night from `first` on: a false change is one (series,
// named night) reported new on any night, counted once.
FalseChanges false_changes(const SuiteShape& shape, int suites, std::size_t first, std::uint64_t seed,
                           const HistoryCheckOptions& o = simulation_options()) {
  FalseChanges f;
  for (int s = 0; s < suites; ++s) {
    const SuiteSimulation sim(shape, 48, 100, {}, seed + static_cast<std::uint64_t>(s));
    std::set<std::pair<std::string, std::string>> seen;
    for (std::size_t n = first; n <= 100; ++n) {
      const auto check = check_history(sim.after(n), o);
      ++f.checks;
      f.nights_with_change += check.new_changes > 0;
      f.nights_with_regression += check.regressions > 0;
      for (const auto& c : check.series)
        if (c.is_new && seen.insert({c.benchmark, c.points[c.recent.index].created}).second) ++f.changes;
    }
  }
  return f;
}

struct StepFound {
  int trials = 0, found = 0, named_right = 0, found_by_night[3] = {0, 0, 0};
};

// One series of the suite steps on night `night`; checked after 1, 2 and 3 nights of the
// new level. Found: reported as a new regression of that series; named right: its first
// night is the step's.
StepFound step_found(const SuiteShape& shape, double step, int trials, std::uint64_t seed,
                     const HistoryCheckOptions& o = simulation_options()) {
  StepFound r;
  std::mt19937_64 pick(seed);
  for (int t = 0; t < trials; ++t) {
    const Truth truth{pick() % 48, 50 + pick() % 47, step};
    const SuiteSimulation sim(shape, 48, 100, truth, seed + 1000 + static_cast<std::uint64_t>(t));
    ++r.trials;
    for (std::size_t after = 1; after <= 3; ++after) {
      const auto check = check_history(sim.after(truth.night + after), o);
      const auto name = fmt::format("bench{:02}", truth.series);
      const auto it = std::find_if(check.series.begin(), check.series.end(), [&](const SeriesCheck& c) { return c.benchmark == name; });
      if (it != check.series.end() && it->regression) {
        ++r.found;
        ++r.found_by_night[after - 1];
        r.named_right += it->recent.index == truth.night;
        break;
      }
    }
  }
  return r;
}

}  // namespace

TEST_CASE("history check: Benjamini-Hochberg adjusts in the input order", "[history]") {
  const std::vector<double> p{0.04, 0.001, 0.03, 0.5};
  const auto q = benjamini_hochberg(p);
  CHECK(q[1] == Approx(0.004));
  CHECK(q[2] == Approx(0.04 * 4 / 3));  // 0.03 * 4/2 = 0.06, then the step-up minimum with 0.04 * 4/3
  CHECK(q[0] == Approx(0.04 * 4 / 3));
  CHECK(q[3] == Approx(0.5));
}

TEST_CASE("history check: a step two or three nights old is new, named by its first night", "[history]") {
  // 12 series at 1% spread, 90 nights; series 3 is 10% slower from night 90 on.
  const SuiteSimulation sim({0.01, 0.01}, 12, 100, {3, 90, 0.10}, 77);
  for (std::size_t nights_after = 1; nights_after <= 3; ++nights_after) {
    const auto check = check_history(sim.after(90 + nights_after));
    INFO("nights after the step: " << nights_after);
    for (const auto& c : check.series) {
      if (c.benchmark != "bench03") {
        CHECK_FALSE(c.is_new);
        continue;
      }
      // One night cannot be told from one wild night without assuming the noise's shape.
      CHECK(c.regression == (nights_after >= 2));
      CHECK(c.recent.index == 90);
      CHECK(c.points[c.recent.index].git_commit == "c090");
      CHECK(c.recent.change == Approx(0.10).margin(0.025));
    }
  }
  // Four nights after, it is no longer new: e-divisive shows it as a past change point.
  const auto later = check_history(sim.after(94));
  CHECK(later.regressions == 0);
  for (const auto& c : later.series)
    if (c.benchmark == "bench03") {
      REQUIRE(c.past.size() == 1);
      CHECK(c.past[0].index == 90);
    }
}

TEST_CASE("history check: every series slower together is the night factor's line, not 48 regressions", "[history]") {
  SuiteSimulation sim({0.01, 0.01}, 48, 40, {}, 5);
  auto history = sim.after(40);
  for (auto& s : history)
    for (std::size_t i = 37; i < 40; ++i) s.points[i].median_s *= 1.2;
  const auto check = check_history(history);
  CHECK(check.regressions == 1);
  REQUIRE(check.series.front().night_factor());
  CHECK(check.series.front().regression);
  CHECK(check.series.front().recent.index == 37);
  CHECK(check.series.front().recent.change == Approx(0.2).margin(0.01));
}

// Issue 36's targets at 2% nightly spread for a suite of 48 benchmarks: <= 1 false change per
// 100 nights, measured 0.88 (2% spread) and 0.79 (5-8%, heavy tails, shared night factors)
// over 2400 suite-nights each by [history-check-measure]; here 1200 suite-nights each must
// stay at 2 or below (expected about 10: a count above 24 is a broken check, Poisson p < 1e-4). A 5%
// step found within 3 nights: the target 80% is out of reach (see docs/gate.md: even a test
// knowing the level and spread finds it 78.5% at this false-change rate); measured 48%, here
// at least 40% of 200 (2.3 standard errors below), and the night named the step's first in
// at least 85% of those found (measured 90%).
TEST_CASE("history check: false changes per suite and power at 2% spread (seeded simulation)", "[history][history-simulation]") {
  const auto null = false_changes({0.02, 0.02}, 20, 41, 11);  // 20 suites x 60 nights
  INFO(fmt::format("{} false changes in {} suite-nights, {} nights exit 1", null.changes, null.checks, null.nights_with_regression));
  CHECK(null.per_100_nights() <= 2.0);
  const auto heavy = false_changes({0.05, 0.08, true, 0.03}, 20, 41, 12);
  INFO(fmt::format("heavy tails: {} false changes in {} suite-nights, {} nights exit 1", heavy.changes, heavy.checks,
                   heavy.nights_with_regression));
  CHECK(heavy.per_100_nights() <= 2.0);
  const auto step = step_found({0.02, 0.02}, 0.05, 200, 13);
  INFO(fmt::format("5% step: found {} of {} within 3 nights ({} {} {} on nights 1 2 3), {} named right", step.found,
                   step.trials, step.found_by_night[0], step.found_by_night[1], step.found_by_night[2], step.named_right));
  CHECK(step.found >= 0.4 * step.trials);
  CHECK(step.named_right >= 0.85 * step.found);
}

// The trade-off behind the defaults (docs/gate.md): hidden, run by name.
TEST_CASE("history check: measure false changes and power by false discovery rate", "[.][history-check-measure]") {
  for (const std::size_t reference : {60, 100})
    for (const double fdr : {0.01, 0.02, 0.05}) {
      const auto o = simulation_options(fdr, reference);
      const auto null = false_changes({0.02, 0.02}, 40, 41, 11, o);
      const auto heavy = false_changes({0.05, 0.08, true, 0.03}, 40, 41, 12, o);
      const auto step = step_found({0.02, 0.02}, 0.05, 200, 13, o);
      const auto big = step_found({0.02, 0.02}, 0.10, 200, 14, o);
      WARN(fmt::format("reference {} fdr {}: false changes per 100 suite-nights {:.2f} (2%), {:.2f} (5-8% heavy, shared); "
                       "5% step found {}/{} (nights 1-3: {} {} {}), named right {}; 10% step {}/{} (nights {} {} {})",
                       reference, fdr, null.per_100_nights(), heavy.per_100_nights(), step.found, step.trials,
                       step.found_by_night[0], step.found_by_night[1], step.found_by_night[2], step.named_right, big.found,
                       big.trials, big.found_by_night[0], big.found_by_night[1], big.found_by_night[2]));
    }
}
