// The gate with the run as its unit: special functions against known values, the
// empirical Bayes prior against simulated variances of known truth, verdicts on simulated
// suites whose runs drift, confirmation by a re-run, and the run medians a baseline keeps.
// Also the tuning file and how a run applies its tiles (the per-device state beside it).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/atomic_file.hpp"
#include "harness/baselines.hpp"
#include "harness/exit_codes.hpp"
#include "harness/gate_exit.hpp"
#include "harness/runner.hpp"
#include "harness/tuning_cache.hpp"
#include "harness/run_unit_gate.hpp"
#include "harness/variance_grid.hpp"
#include "harness/special_functions.hpp"
#include "suites/attention/attention_problem.hpp"

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

TEST_CASE("the grid of variances recovers two clusters, and a quiet benchmark's posterior stays quiet", "[gate][run-unit]") {
  // A suite whose benchmarks drift 0.2% (a third) or 2% (the rest) from run to run, each
  // observed on 4 degrees of freedom: the grid's mass sits near the two, in their shares,
  // and a benchmark whose own variance is small is placed with the quiet ones.
  std::mt19937_64 rng(7);
  std::chi_squared_distribution<double> sample_draw(4);
  std::vector<double> variances, dfs;
  for (int b = 0; b < 3000; ++b) {
    const double truth = b % 3 == 0 ? 0.002 * 0.002 : 0.02 * 0.02;
    variances.push_back(truth * sample_draw(rng) / 4);
    dfs.push_back(4);
  }
  const double floor = 1e-12;
  const auto grid = fit_variance_grid(variances, dfs, floor);
  double quiet_mass = 0, total = 0;
  for (std::size_t i = 0; i < grid.variance.size(); ++i) {
    total += grid.weight[i];
    if (grid.variance[i] < 0.006 * 0.006) quiet_mass += grid.weight[i];
  }
  CHECK(total == Approx(1).epsilon(1e-9));
  CHECK(quiet_mass == Approx(1.0 / 3).margin(0.03));
  const auto quiet = posterior_weights(grid, 0.0025 * 0.0025, 4, floor);
  double quiet_posterior = 0;
  for (std::size_t i = 0; i < grid.variance.size(); ++i)
    if (grid.variance[i] < 0.006 * 0.006) quiet_posterior += quiet[i];
  CHECK(quiet_posterior > 0.99);
}

TEST_CASE("run unit: A/A suites under drift rarely FAIL, and a large slowdown FAILs",
          "[gate][run-unit]") {
  DriftingSuite suite;
  GateConfig config;
  config.alpha = 0.05;  // family-wise, so that its rate can be counted in 200 suites
  // tau 0: FAIL is then a test of "no change", whose family-wise rate the model fixes at
  // about alpha: too many suites failing means a wrong error term, too few a lost test.
  config.tau_kernel = 0;
  int suites_failed = 0, compared = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const auto r = gate_against_runs(suite.baseline(6), suite.run(), config, "aa");
    suites_failed += r.count(Verdict::fail) > 0;
    compared += r.count(Verdict::pass) + r.count(Verdict::unresolved) + r.count(Verdict::improved) + r.count(Verdict::fail);
  }
  CHECK(compared == 200 * suite.benchmarks);
  CHECK(suites_failed >= 2);   // about 10 expected (alpha 5% of 200, Holm a little below)
  CHECK(suites_failed <= 18);  // 2.5 sd above
  // At tau 10% the quiet benchmarks (2-3% spread: a 95% interval of about +-5% at 10 runs)
  // PASS.
  config.tau_kernel = 0.10;
  const auto quiet = gate_against_runs(suite.baseline(10), suite.run(), config, "aa");
  int quiet_pass = 0;
  for (int b = 0; b < 4; ++b) quiet_pass += named(quiet, name_of(b)).verdict == Verdict::pass;
  CHECK(quiet_pass >= 2);

  // One quiet benchmark 50% slower FAILs alone; every benchmark 50% slower is the suite's
  // shift, beyond the runs' spread: one FAIL of the suite, not 48 of its benchmarks.
  auto one_slow = suite.run();
  for (auto& s : one_slow.results[0].samples) s.seconds_per_iteration *= 1.5;
  const auto slow = gate_against_runs(suite.baseline(8), one_slow, config, "slow");
  CHECK(named(slow, name_of(0)).verdict == Verdict::fail);
  CHECK(named(slow, name_of(0)).change == Approx(0.5).margin(0.1));
  CHECK(named(slow, name_of(0)).change_low > 0.3);
  CHECK(slow.count(Verdict::fail) == 1);
  CHECK(slow.correction.find("8 baseline runs") != std::string::npos);
  const auto all_slow = gate_against_runs(suite.baseline(8), suite.run(0.5), config, "all slow");
  CHECK(all_slow.suite_shift.verdict == Verdict::fail);
  CHECK(all_slow.suite_shift.change == Approx(0.5).margin(0.1));
  CHECK(all_slow.count(Verdict::fail) <= 2);
}

TEST_CASE("run unit: a 2x speed-up is IMPROVED, identical medians take the tick",
          "[gate][run-unit]") {
  RunUnitBaseline base{"b", 5, {}};
  base.medians_s[name_of(0)] = {1e-3, 1.01e-3, 0.99e-3, 1.02e-3, 0.98e-3};
  RunResults cur;
  cur.results = {point(shape_of(0), 0.5e-3)};
  const auto faster = gate_against_runs(base, cur, GateConfig{}, "c");
  CHECK(named(faster, name_of(0)).verdict == Verdict::improved);
  CHECK(named(faster, name_of(0)).change == Approx(-0.5).margin(0.01));

  // Identical baseline medians have no spread, but the current run's repetitions floor it:
  // twice as slow FAILs.
  base.medians_s[name_of(1)] = {1e-3, 1e-3, 1e-3};
  cur.results = {point(shape_of(1), 2e-3)};
  const auto same = gate_against_runs(base, cur, GateConfig{}, "c");
  CHECK(named(same, name_of(1)).tested);
  CHECK(named(same, name_of(1)).verdict == Verdict::fail);
  // Identical medians and a run of identical samples: the only tick they show is the gap
  // between the two sides, so the change cannot be told from one tick: UNRESOLVED, never a
  // PASS (the review's case: a PASS beside it once made the gate exit 0).
  cur.results = {point(shape_of(1), 2e-3)};
  for (auto& s : cur.results[0].samples) s.seconds_per_iteration = 2e-3;
  base.medians_s[name_of(1)] = {2e-3 / 1.9, 2e-3 / 1.9, 2e-3 / 1.9};
  const auto flat = gate_against_runs(base, cur, GateConfig{}, "c");
  INFO(named(flat, name_of(1)).reason);
  CHECK(named(flat, name_of(1)).verdict == Verdict::unresolved);
  CHECK(named(flat, name_of(1)).reason.find("noise") != std::string::npos);
}

TEST_CASE("run unit: one baseline run, a broken point, NEW and MISSING", "[gate][run-unit]") {
  RunUnitBaseline base{"b", 3, {}};
  base.medians_s[name_of(0)] = {1e-3};                // one run only
  base.medians_s[name_of(1)] = {1e-3, 1.02e-3, 0.99e-3};  // a point that will fail its check
  base.medians_s[name_of(2)] = {1e-3, 1.01e-3, 0.98e-3};  // gone from the run
  RunResults cur;
  cur.results = {point(shape_of(0), 1e-3), point(shape_of(1), 1e-3), point(shape_of(3), 1e-3), point(shape_of(4), 1e-3, 2)};
  cur.results[1].status = Status::failed;
  cur.results[1].reason = "C[0,0] = 7, reference 8";
  base.medians_s[name_of(4)] = {1e-3, 1.01e-3, 0.98e-3};  // measured with too few repetitions
  const auto r = gate_against_runs(base, cur, GateConfig{}, "c");
  CHECK(named(r, name_of(0)).verdict == Verdict::unresolved);
  CHECK(named(r, name_of(0)).reason.find("only one baseline run") != std::string::npos);
  CHECK(named(r, name_of(1)).verdict == Verdict::fail);
  CHECK(named(r, name_of(1)).broken);
  CHECK(named(r, name_of(2)).verdict == Verdict::missing);
  CHECK(named(r, name_of(3)).verdict == Verdict::added);
  CHECK(named(r, name_of(4)).verdict == Verdict::unresolved);
  CHECK(named(r, name_of(4)).reason.find("at least 3") != std::string::npos);
}

TEST_CASE("a re-run confirms a FAIL or clears it, never a broken point", "[gate][run-unit]") {
  RunUnitBaseline base{"b", 6, {}};
  // A fourth benchmark unchanged: a small suite whose every benchmark FAILs is its shift.
  for (int b = 0; b < 4; ++b) base.medians_s[name_of(b)] = {1e-3, 1.01e-3, 0.99e-3, 1.02e-3, 0.985e-3, 1.005e-3};
  RunResults first, again, partial;
  first.results = {point(shape_of(0), 2e-3), point(shape_of(1), 2e-3), point(shape_of(2), 1e-3), point(shape_of(3), 1e-3)};
  first.results[2].status = Status::error;
  again.results = {point(shape_of(0), 2e-3), point(shape_of(1), 1e-3), point(shape_of(2), 1e-3), point(shape_of(3), 1e-3)};
  partial.results = {point(shape_of(0), 1e-3)};
  auto r = gate_against_runs(base, first, GateConfig{}, "first.json");
  REQUIRE(r.count(Verdict::fail) == 3);
  confirm_failures(r, {gate_against_runs(base, again, GateConfig{}, "again.json")});
  CHECK(named(r, name_of(0)).verdict == Verdict::fail);          // repeated
  CHECK(named(r, name_of(1)).verdict == Verdict::unresolved);  // cleared
  CHECK(named(r, name_of(1)).reason.find("again.json does not repeat") != std::string::npos);
  CHECK(named(r, name_of(2)).verdict == Verdict::fail);  // an error stays an error

  // A re-run that skipped a point, or could not test it, clears nothing.
  RunResults skipped;
  skipped.results = {point(shape_of(0), 1e-3), point(shape_of(1), 1e-3, 2)};  // too few repetitions to test
  skipped.results[0].status = Status::skipped;
  auto kept = gate_against_runs(base, first, GateConfig{}, "first.json");
  confirm_failures(kept, {gate_against_runs(base, skipped, GateConfig{}, "skipped.json")});
  CHECK(kept.count(Verdict::fail) == 3);

  // A re-run of only some benchmarks leaves the others as they were.
  auto s = gate_against_runs(base, first, GateConfig{}, "first.json");
  confirm_failures(s, {gate_against_runs(base, partial, GateConfig{}, "partial.json")});
  CHECK(named(s, name_of(0)).verdict == Verdict::unresolved);
  CHECK(named(s, name_of(1)).verdict == Verdict::fail);

  // A re-run of some benchmarks is gated in the run's company: the others as the run measured them.
  const auto merged = with_reruns(first, partial);
  REQUIRE(merged.results.size() == first.results.size());
  CHECK(merged.results[0].samples[0].seconds_per_iteration == partial.results[0].samples[0].seconds_per_iteration);
  CHECK(merged.results[1].samples[0].seconds_per_iteration == first.results[1].samples[0].seconds_per_iteration);
  CHECK(merged.results[2].status == Status::error);
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

TEST_CASE("tuning file: kept choices round-trip, others stay, a bad file names the way out", "[tune]") {
  const auto dir = std::filesystem::temp_directory_path() / "rooftop-tuning-test";
  std::filesystem::remove_all(dir);
  const auto path = dir / "tuning" / "cpu-test.json";
  CHECK(load_tuning(path).empty());
  save_tuning(path, "cpu-test", {{"a", {"m64n128", "2026-11-24T00:00:00Z", "0.1.0", {{"", "ok", 2e-3, ""}, {"m64n128", "ok", 1e-3, ""}}}}});
  save_tuning(path, "cpu-test", {{"b", {"", "2026-11-24T01:00:00Z", "0.1.0", {{"m512n512", "failed", 0, "C[0,0] wrong"}}}}});
  const auto kept = load_tuning(path);
  REQUIRE(kept.size() == 2);
  CHECK(kept.at("a").tile == "m64n128");
  CHECK(kept.at("a").candidates.at(1).median_s == Approx(1e-3));
  CHECK(kept.at("b").candidates.at(0).reason == "C[0,0] wrong");
  std::ofstream(path) << "{\"points\": {\"a\": {\"tile\": 7}}}";
  CHECK_THROWS_WITH(load_tuning(path), Catch::Contains("rooftop tune"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("several files are written all or nothing, and a link is replaced, not written through", "[baseline]") {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / "rooftop-all-or-nothing-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "b.json" / "inside");  // a folder that no rename can replace
  std::ofstream(dir / "a.json") << "old";
  const auto text = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  CHECK_THROWS_WITH(write_files_atomically({{dir / "a.json", "new"}, {dir / "b.json", "new"}}),
                    Catch::Contains("b.json") && Catch::Contains("put back"));
  CHECK(text(dir / "a.json") == "old");  // replaced, then put back
  // A writer's temporary is ".<name>.rooftop-tmp.<pid>": any hidden file is one left behind.
  for (const auto& e : fs::directory_iterator(dir)) CHECK_FALSE(e.path().filename().string().starts_with("."));
  std::ofstream(dir / "outside.txt") << "precious";
  fs::create_symlink(dir / "outside.txt", dir / "link.json");
  write_files_atomically({{dir / "a.json", "new"}, {dir / "link.json", "written"}});
  CHECK(text(dir / "a.json") == "new");
  CHECK(text(dir / "outside.txt") == "precious");
  CHECK_FALSE(fs::is_symlink(dir / "link.json"));
  CHECK(text(dir / "link.json") == "written");
  fs::remove_all(dir);
}

TEST_CASE("a tuning file of another device is not this device's choices", "[tune]") {
  const auto dir = std::filesystem::temp_directory_path() / "rooftop-tuning-device-test";
  std::filesystem::remove_all(dir);
  const auto path = dir / "tuning" / "cpu-test.json";
  save_tuning(path, "cpu-other", {{"a", {"m64n128", "2026-11-24T00:00:00Z", "0.1.0", {}}}});
  CHECK(load_tuning(path).size() == 1);  // no device asked: read as it is
  CHECK_THROWS_AS(load_tuning(path, "cpu-test"), TuningOfAnotherDevice);
  CHECK_THROWS_WITH(load_tuning(path, "cpu-test"), Catch::Contains("tuned on device cpu-other"));
  save_tuning(path, "cpu-test", {{"b", {"", "2026-11-24T01:00:00Z", "0.1.0", {}}}});  // replaces the other device's
  const auto kept = load_tuning(path, "cpu-test");
  CHECK(kept.size() == 1);
  CHECK(kept.count("b") == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a run applies tuned tiles to tunable points and says where the default ran", "[tune]") {
  RunOptions o;
  o.tiles["attention/cpu/fp32/prefill_b1_hq8_hkv2_s512_d128_full_fused"] = {"m64n128", "tuned 2026-11-24T00:00:00Z"};
  std::vector<Problem> points = {attention::make_attention_problem(attention::parse_attention_shape("prefill:1x8x2x512x128"),
                                                                   Dtype::fp32, "cpu"),
                                 attention::make_attention_problem(attention::parse_attention_shape("prefill:1x8x2x1024x128"),
                                                                   Dtype::fp32, "cpu"),
                                 attention::make_attention_problem(attention::parse_attention_shape("decode:1x32x8x1024x128"),
                                                                   Dtype::fp32, "cpu")};
  apply_tiles(o, points);
  CHECK(points[0].tile == "m64n128");
  CHECK(attention::shape_of(points[0]).tile == "m64n128");  // the suite runs the runner's tile
  CHECK(attention::shape_of(points[1]).tile.empty());       // its default
  CHECK(points[0].name() == "attention/cpu/fp32/prefill_b1_hq8_hkv2_s512_d128_full_fused");  // the name stays
  CHECK(points[1].tile_source.find("no tuned tile") != std::string::npos);
  CHECK(points[2].tile_source.empty());  // decode has no tiles
}
