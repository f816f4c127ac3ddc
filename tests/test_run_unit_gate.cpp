// The gate with the run as its unit: special functions against known values, the
// empirical Bayes prior against simulated variances of known truth, verdicts on simulated
// suites whose runs drift, confirmation by a re-run, and the run medians a baseline keeps.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/baselines.hpp"
#include "harness/run_unit_gate.hpp"
#include "harness/special_functions.hpp"

using namespace rooftop;

namespace {
ResultRecord point(const std::string& shape, double seconds, int repetitions = 10) {
  ResultRecord r;
  r.problem.family = "gemm";
  r.problem.backend = "cpu";
  r.problem.dtype = Dtype::fp32;
  r.problem.shape = shape;
  for (int i = 0; i < repetitions; ++i) r.samples.push_back({seconds * (1 + 0.001 * (i - repetitions / 2)), 100, 0});
  return r;
}

std::string shape_of(int b) { return fmt::format("m{}_n64_k64", b + 1); }
std::string name_of(int b) { return "gemm/cpu/fp32/" + shape_of(b); }

// A suite of `benchmarks` whose medians drift between runs: each benchmark's own spread
// (log sd between 2% and 10%, fixed per benchmark), drawn afresh for every run.
struct DriftingSuite {
  int benchmarks = 48;
  std::mt19937_64 rng{20261124};
  double spread(int b) const { return 0.02 + 0.08 * b / benchmarks; }
  double draw(int b) { return std::exp(std::normal_distribution<double>(0, spread(b))(rng)); }
  RunUnitBaseline baseline(int runs) {
    RunUnitBaseline base{"simulated", runs, {}};
    for (int b = 0; b < benchmarks; ++b)
      for (int r = 0; r < runs; ++r) base.medians_s[name_of(b)].push_back(1e-3 * draw(b));
    return base;
  }
  RunResults run(double slowdown = 0) {
    RunResults cur;
    for (int b = 0; b < benchmarks; ++b) cur.results.push_back(point(shape_of(b), 1e-3 * draw(b) * (1 + slowdown)));
    return cur;
  }
};

const Comparison& named(const GateReport& r, const std::string& name) {
  for (const auto& c : r.comparisons)
    if (c.name == name) return c;
  FAIL("no comparison for " << name);
  return r.comparisons.front();
}
}  // namespace

TEST_CASE("special functions match known values", "[gate][run-unit]") {
  const double euler = 0.5772156649015329, pi2 = std::numbers::pi * std::numbers::pi;
  CHECK(digamma(1) == Approx(-euler).epsilon(1e-13));
  CHECK(digamma(0.5) == Approx(-euler - 2 * std::log(2.0)).epsilon(1e-13));
  CHECK(digamma(30.5) - digamma(29.5) == Approx(1 / 29.5).epsilon(1e-12));
  CHECK(trigamma(1) == Approx(pi2 / 6).epsilon(1e-13));
  CHECK(trigamma(0.5) == Approx(pi2 / 2).epsilon(1e-13));
  CHECK(tetragamma(1) == Approx(-2 * 1.2020569031595943).epsilon(1e-12));  // -2 zeta(3)
  for (double y : {0.05, 0.7, 3.7, 42.0, 900.0}) CHECK(trigamma_inverse(trigamma(y)) == Approx(y).epsilon(1e-8));
  CHECK(student_t_cdf(1, 1) == Approx(0.75).epsilon(1e-12));  // Cauchy
  CHECK(student_t_cdf(2, 5) == Approx(0.9490302605850709).epsilon(1e-10));
  CHECK(student_t_cdf(-2, 5) == Approx(1 - 0.9490302605850709).epsilon(1e-9));
  CHECK(student_t_quantile(0.975, 10) == Approx(2.228138851986522).epsilon(1e-9));
  CHECK(student_t_quantile(0.025, 3) == Approx(-3.182446305284263).epsilon(1e-9));
  CHECK(student_t_quantile(0.975, std::numeric_limits<double>::infinity()) == Approx(1.959963984540054).epsilon(1e-9));
  CHECK(student_t_quantile(1 - 1e-6, 4) == Approx(
      // the tail of t with 4 df in closed form: P(T > t) = (1 - t sqrt(t^2 + 4)^-1 (1 + 2 / (t^2 + 4))) / 2
      [] {
        double lo = 1, hi = 1e4;
        for (int i = 0; i < 200; ++i) {
          const double t = (lo + hi) / 2, u = t * t + 4;
          ((1 - t / std::sqrt(u) * (1 + 2 / u)) / 2 > 1e-6 ? lo : hi) = t;
        }
        return lo;
      }()).epsilon(1e-7));
}

TEST_CASE("the variance prior recovers a known prior, and is infinite where variances agree", "[gate][run-unit]") {
  // True variances from a scaled inverse chi-square (d0 = 8, s0^2 = 0.01), each observed on
  // 4 degrees of freedom: Smyth's moments should find d0 and s0^2 again.
  std::mt19937_64 rng(7);
  std::chi_squared_distribution<double> prior_draw(8), sample_draw(4);
  std::vector<double> variances, dfs;
  for (int g = 0; g < 20000; ++g) {
    const double truth = 0.01 * 8 / prior_draw(rng);
    variances.push_back(truth * sample_draw(rng) / 4);
    dfs.push_back(4);
  }
  const auto prior = fit_variance_prior(variances, dfs);
  CHECK(prior.df == Approx(8).epsilon(0.15));
  CHECK(prior.variance == Approx(0.01).epsilon(0.05));
  // Shrinkage: halfway between a benchmark's own variance and the prior at d0 = df.
  CHECK(moderated_variance({4, 0.01}, 0.03, 4) == Approx(0.02));

  std::vector<double> same(5000), four(5000, 4);
  for (auto& v : same) v = 0.0025 * sample_draw(rng) / 4;  // one common variance, sampling only
  const auto agree = fit_variance_prior(same, four);
  INFO("prior df " << agree.df);
  CHECK((std::isinf(agree.df) || agree.df > 40));  // all but complete pooling
  CHECK(agree.variance == Approx(0.0025).epsilon(0.05));
}

TEST_CASE("run unit: A/A suites under drift rarely FAIL, and a large slowdown FAILs",
          "[gate][run-unit]") {
  DriftingSuite suite;
  GateConfig config;
  config.alpha = 0.05;  // family-wise, so that its rate can be counted in 200 suites
  int suites_failed = 0, inconclusive = 0, compared = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const auto r = gate_against_runs(suite.baseline(6), suite.run(), config, "aa");
    suites_failed += r.count(Verdict::fail) > 0;
    inconclusive += r.count(Verdict::inconclusive);
    compared += r.count(Verdict::pass) + r.count(Verdict::inconclusive) + r.count(Verdict::improved) + r.count(Verdict::fail);
  }
  CHECK(compared == 200 * suite.benchmarks);
  CHECK(suites_failed <= 16);  // alpha 5% of 200 is 10 expected at most; 16 is 2 sd beyond
  INFO("INCONCLUSIVE " << inconclusive << " of " << compared);
  CHECK(inconclusive < compared);  // the quiet benchmarks PASS

  // A 50% slowdown: the quiet benchmarks (2-4% spread) must FAIL; the noisiest may not.
  const auto slow = gate_against_runs(suite.baseline(8), suite.run(0.5), config, "slow");
  for (int b = 0; b < 12; ++b) CHECK(named(slow, name_of(b)).verdict == Verdict::fail);
  CHECK(named(slow, name_of(0)).change == Approx(0.5).margin(0.1));
  CHECK(named(slow, name_of(0)).change_low > 0.3);
  CHECK(slow.correction.find("8 baseline runs") != std::string::npos);
}

TEST_CASE("run unit: one baseline run, a broken point, NEW and MISSING", "[gate][run-unit]") {
  RunUnitBaseline base{"b", 3, {}};
  base.medians_s[name_of(0)] = {1e-3};                // one run only
  base.medians_s[name_of(1)] = {1e-3, 1.02e-3, 0.99e-3};  // a point that will fail its check
  base.medians_s[name_of(2)] = {1e-3, 1.01e-3, 0.98e-3};  // gone from the run
  RunResults cur;
  cur.results = {point(shape_of(0), 1e-3), point(shape_of(1), 1e-3), point(shape_of(3), 1e-3), point(shape_of(4), 1e-3, 3)};
  cur.results[1].status = Status::failed;
  cur.results[1].reason = "C[0,0] = 7, reference 8";
  base.medians_s[name_of(4)] = {1e-3, 1.01e-3, 0.98e-3};  // measured with too few repetitions
  const auto r = gate_against_runs(base, cur, GateConfig{}, "c");
  CHECK(named(r, name_of(0)).verdict == Verdict::inconclusive);
  CHECK(named(r, name_of(0)).reason.find("only one baseline run") != std::string::npos);
  CHECK(named(r, name_of(1)).verdict == Verdict::fail);
  CHECK(named(r, name_of(1)).broken);
  CHECK(named(r, name_of(2)).verdict == Verdict::missing);
  CHECK(named(r, name_of(3)).verdict == Verdict::added);
  CHECK(named(r, name_of(4)).verdict == Verdict::inconclusive);
  CHECK(named(r, name_of(4)).reason.find("at least 7") != std::string::npos);
}

TEST_CASE("a re-run confirms a FAIL or clears it, never a broken point", "[gate][run-unit]") {
  RunUnitBaseline base{"b", 6, {}};
  for (int b = 0; b < 3; ++b) base.medians_s[name_of(b)] = {1e-3, 1.01e-3, 0.99e-3, 1.02e-3, 0.985e-3, 1.005e-3};
  RunResults first, again, partial;
  first.results = {point(shape_of(0), 2e-3), point(shape_of(1), 2e-3), point(shape_of(2), 1e-3)};
  first.results[2].status = Status::error;
  again.results = {point(shape_of(0), 2e-3), point(shape_of(1), 1e-3), point(shape_of(2), 1e-3)};
  partial.results = {point(shape_of(0), 1e-3)};
  auto r = gate_against_runs(base, first, GateConfig{}, "first.json");
  REQUIRE(r.count(Verdict::fail) == 3);
  confirm_failures(r, {gate_against_runs(base, again, GateConfig{}, "again.json")});
  CHECK(named(r, name_of(0)).verdict == Verdict::fail);          // repeated
  CHECK(named(r, name_of(1)).verdict == Verdict::inconclusive);  // cleared
  CHECK(named(r, name_of(1)).reason.find("again.json does not repeat") != std::string::npos);
  CHECK(named(r, name_of(2)).verdict == Verdict::fail);  // an error stays an error

  // A re-run of only some benchmarks leaves the others as they were.
  auto s = gate_against_runs(base, first, GateConfig{}, "first.json");
  confirm_failures(s, {gate_against_runs(base, partial, GateConfig{}, "partial.json")});
  CHECK(named(s, name_of(0)).verdict == Verdict::inconclusive);
  CHECK(named(s, name_of(1)).verdict == Verdict::fail);
}

TEST_CASE("history baseline: the latest runs of this device and tier, not the run itself", "[gate][run-unit]") {
  RunResults cur;
  cur.meta.fingerprint = "cpu-x";
  cur.meta.tier = "quick";
  cur.meta.created = "2026-11-05T02:00:00Z";
  HistorySeries mine{"cpu-x", "quick", name_of(0), {}}, other_tier{"cpu-x", "full", name_of(1), {}},
      other_device{"cpu-y", "quick", name_of(2), {}};
  for (int night = 1; night <= 5; ++night) {
    const auto created = fmt::format("2026-11-{:02d}T02:00:00Z", night);
    mine.points.push_back({created, "c", 1e-3 * night});
    other_tier.points.push_back({created, "c", 1e-3});
    other_device.points.push_back({created, "c", 1e-3});
  }
  const auto base = history_baseline({mine, other_tier, other_device}, cur, 3, "h.sqlite");
  REQUIRE(base.medians_s.size() == 1);
  CHECK(base.medians_s.at(name_of(0)) == std::vector<double>{2e-3, 3e-3, 4e-3});  // night 5 is the current run
  CHECK(base.runs == 3);
}

TEST_CASE("a baseline keeps one median per promoted run, appended run by run", "[gate][run-unit]") {
  const auto store = std::filesystem::temp_directory_path() / "rooftop-run-medians-test";
  std::filesystem::remove_all(store);
  RunResults run;
  run.meta.fingerprint = "cpu-test";
  run.meta.tier = "quick";
  run.meta.complete = true;
  for (int night = 0; night < 3; ++night) {
    run.meta.created = fmt::format("2026-11-0{}T02:00:00Z", night + 1);
    run.results = {point(shape_of(0), 1e-3 * (1 + 0.1 * night)), point(shape_of(1), 2e-3)};
    promote_baselines(run, "night.json", store, night > 0);
  }
  RunUnitBaseline into;
  CHECK(read_run_medians(baseline_file(store, "cpu-test", "gemm"), into) == 3);
  REQUIRE(into.medians_s.at(name_of(0)).size() == 3);
  CHECK(into.medians_s.at(name_of(0))[2] == Approx(1.2e-3).epsilon(1e-3));
  // Replaced, not appended: one run again.
  promote_baselines(run, "night.json", store, false);
  RunUnitBaseline fresh;
  CHECK(read_run_medians(baseline_file(store, "cpu-test", "gemm"), fresh) == 1);
  std::filesystem::remove_all(store);
}
