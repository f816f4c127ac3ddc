#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include "harness/errors.hpp"
#include "harness/ab_sequential.hpp"
#include "harness/gate.hpp"

using namespace rooftop;

namespace {
// Ten samples around `centre`, spread by +-spread in a fixed zig-zag (no ties).
std::vector<Sample> samples(double centre, double spread, int n = 10, double clock = 2500) {
  std::vector<Sample> s;
  for (int i = 0; i < n; ++i) s.push_back({centre * (1 + spread * ((i % 2 ? 1 : -1) * (i + 1) / double(n))), 100, clock});
  return s;
}

RunResults run_of(const std::vector<std::pair<std::string, std::vector<Sample>>>& points) {
  RunResults run;
  run.meta.fingerprint = "cpu-test";
  run.meta.tier = "quick";
  for (const auto& [shape, s] : points) {
    ResultRecord r;
    r.problem.family = "gemm";
    r.problem.backend = "cpu";
    r.problem.dtype = Dtype::fp32;
    r.problem.shape = shape;
    r.samples = s;
    run.results.push_back(r);
  }
  return run;
}

Comparison only(const GateReport& r, const std::string& shape) {
  for (const auto& c : r.comparisons)
    if (c.name == "gemm/cpu/fp32/" + shape) return c;
  FAIL("no comparison for " << shape);
  return {};
}
}  // namespace

TEST_CASE("verdicts at their boundaries", "[gate]") {
  const GateConfig config;
  std::vector<std::pair<std::string, std::vector<Sample>>> b{
      {"same", samples(1.0, 0.01)}, {"slow20", samples(1.0, 0.01)}, {"fast20", samples(1.0, 0.01)},
      {"slow1", samples(1.0, 0.002)}, {"noisy", samples(1.0, 0.3)}, {"few", samples(1.0, 0.01, 6)},
      {"gone", samples(1.0, 0.01)}};
  std::vector<std::pair<std::string, std::vector<Sample>>> c{
      {"same", samples(1.0, 0.01)}, {"slow20", samples(1.2, 0.01)}, {"fast20", samples(0.8, 0.01)},
      {"slow1", samples(1.01, 0.002)}, {"noisy", samples(1.05, 0.3)}, {"few", samples(1.5, 0.01, 6)},
      {"added", samples(1.0, 0.01)}};
  // Twenty steady benchmarks beside them: with one baseline run the drift between runs is
  // measured across 20 or more (fewer take the prior's 3%, which no 20% change clears).
  for (int i = 0; i < 20; ++i) {
    b.push_back({"steady" + std::to_string(i), samples(1.0 + 0.01 * i, 0.01)});
    c.push_back({"steady" + std::to_string(i), samples((1.0 + 0.01 * i) * (1 + 0.002 * (i % 3 - 1)), 0.01)});
  }
  const auto r = gate_results(run_of(b), run_of(c), config, "b", "c");
  CHECK(only(r, "same").verdict == Verdict::pass);
  CHECK(only(r, "slow20").verdict == Verdict::fail);
  // Own changes: the suite's shared factor (the median shift, +1% here) is taken out.
  CHECK(only(r, "slow20").change == Approx(0.2).margin(0.02));
  CHECK(only(r, "fast20").verdict == Verdict::improved);
  // Smaller than tau: never a regression.
  CHECK(only(r, "slow1").verdict != Verdict::fail);
  const auto noisy = only(r, "noisy");
  CHECK(noisy.verdict == Verdict::unresolved);
  CHECK(noisy.minimum_detectable > 0.03);
  CHECK_THAT(noisy.reason, Catch::Contains("or more would FAIL"));
  CHECK(only(r, "few").verdict == Verdict::unresolved);
  CHECK_THAT(only(r, "few").reason, Catch::Contains("at least 7"));
  CHECK(only(r, "added").verdict == Verdict::added);
  CHECK(only(r, "gone").verdict == Verdict::missing);
  CHECK(r.count(Verdict::fail) == 1);
}

TEST_CASE("a FAIL stays reachable in a suite of 200 benchmarks (no rank test's floor on p)", "[gate]") {
  std::vector<std::pair<std::string, std::vector<Sample>>> b, c;
  for (int i = 0; i < 200; ++i) {  // 200 tests: complete separation of 10 vs 10 (p 1.1e-5) > 0.001 / 200
    b.push_back({"p" + std::to_string(i), samples(1.0, 0.01)});
    c.push_back({"p" + std::to_string(i), samples(i == 0 ? 1.5 : 1.0, 0.01)});
  }
  const auto r = gate_results(run_of(b), run_of(c), GateConfig{}, "b", "c");
  const auto first = only(r, "p0");
  INFO(first.reason);
  CHECK(first.verdict == Verdict::fail);
  CHECK(r.count(Verdict::fail) == 1);
}

TEST_CASE("FAIL needs the interval beyond tau: a change of exactly tau is not a coin toss", "[gate]") {
  // +3.5% with 1% noise: the estimate is beyond tau (3%), the interval is not wholly.
  const auto r = gate_results(run_of({{"edge", samples(1.0, 0.02)}}), run_of({{"edge", samples(1.035, 0.02)}}),
                              GateConfig{}, "b", "c");
  const auto c = only(r, "edge");
  INFO(c.reason);
  CHECK(c.change > 0.03);
  CHECK(c.change_low < 0.03);
  CHECK(c.verdict == Verdict::unresolved);
}

TEST_CASE("a wrong result fails, so does a slowdown that lowered the clock, a clock change alone is not comparable",
          "[gate]") {
  auto base = run_of({{"wrong", samples(1.0, 0.01)}, {"clock", samples(1.0, 0.01, 10, 2500)},
                      {"clock_only", samples(1.0, 0.01, 10, 2500)}});
  auto cur = run_of({{"wrong", samples(1.0, 0.01)}, {"clock", samples(1.3, 0.01, 10, 1800)},
                     {"clock_only", samples(1.01, 0.01, 10, 1800)}});
  cur.results[0].status = Status::failed;
  cur.results[0].reason = "wrong results";
  const auto r = gate_results(base, cur, GateConfig{}, "b", "c");
  CHECK(only(r, "wrong").verdict == Verdict::fail);
  CHECK(only(r, "clock").verdict == Verdict::fail);  // a regression may be what lowered the clock
  CHECK(only(r, "clock").clock_differs);
  CHECK_THAT(only(r, "clock").reason, Catch::Contains("1800 MHz") && Catch::Contains("may be the clock's"));
  CHECK(only(r, "clock_only").verdict == Verdict::unresolved);
  CHECK_THAT(only(r, "clock_only").reason, Catch::Contains("not comparable"));
}

TEST_CASE("ab: a point that failed in build B is a FAIL, a point of one build MISSING or NEW", "[gate]") {
  SequentialAb ab(GateConfig{}, 40);
  for (int k = 0; k < 8; ++k) {
    auto a = run_of({{"same", samples(1.0, 0.01)}, {"broken", samples(1.0, 0.01)}, {"gone", samples(1.0, 0.01)},
                     {"too_big", {}}});
    auto b = run_of({{"same", samples(1.0, 0.01)}, {"broken", samples(1.0, 0.01)}, {"added", samples(1.0, 0.01)},
                     {"too_big", {}}});
    for (auto* run : {&a, &b}) {  // skipped on both sides: not waited for
      run->results[3].status = Status::skipped;
      run->results[3].reason = "needs 90 GiB";
    }
    if (k == 5) {  // one run of B gets a wrong result
      b.results[1].status = Status::failed;
      b.results[1].reason = "wrong results";
      b.results[1].samples.clear();
    }
    ab.add_pair(a, b);
  }
  const auto r = ab.report("a", "b");
  CHECK(only(r, "broken").verdict == Verdict::fail);
  CHECK_THAT(only(r, "broken").reason, Catch::Contains("correctness") && Catch::Contains("pair 6"));
  CHECK(only(r, "gone").verdict == Verdict::missing);
  CHECK(only(r, "added").verdict == Verdict::added);
  CHECK(only(r, "too_big").verdict == Verdict::unresolved);
  CHECK_THAT(only(r, "too_big").reason, Catch::Contains("skipped") && Catch::Contains("needs 90 GiB"));
  // Two benchmarks: Tukey's exact interval, which 8 pairs cannot bring to the plan's level.
  CHECK(only(r, "same").verdict == Verdict::unresolved);
  CHECK_THAT(only(r, "same").reason, Catch::Contains("undecided after 8 pairs"));
}

// Pairs of one benchmark drawn with a known true change, noise and a drift shared by both
// builds of a pair (it cancels); order effects alternate as the real schedule does.
GateReport simulate_ab(double true_change, double cv, int max_pairs, unsigned seed, int benchmarks = 1) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, cv), drift(0.0, 0.2);
  SequentialAb ab(GateConfig{}, max_pairs);
  while (!ab.done()) {
    const double machine = std::exp(drift(rng));  // this pair's machine speed
    std::vector<std::pair<std::string, std::vector<Sample>>> a, b;
    for (int i = 0; i < benchmarks; ++i) {
      std::vector<Sample> sa, sb;
      for (int k = 0; k < 3; ++k) {
        sa.push_back({machine * std::exp(noise(rng)), 100, 2500});
        sb.push_back({machine * (1 + true_change) * std::exp(noise(rng)), 100, 2500});
      }
      a.push_back({fmt::format("b{}", i), sa});
      b.push_back({fmt::format("b{}", i), sb});
    }
    ab.add_pair(run_of(a), run_of(b));
  }
  return ab.report("a", "b");
}

TEST_CASE("ab decides a clear slowdown, passes the same build, and stops early", "[gate]") {
  int fails = 0, passes = 0, false_fails = 0;
  for (unsigned seed = 0; seed < 20; ++seed) {
    const auto slow = simulate_ab(0.20, 0.02, 64, seed);
    fails += slow.comparisons[0].verdict == Verdict::fail;
    const auto same = simulate_ab(0.0, 0.02, 64, 100 + seed);
    passes += same.comparisons[0].verdict == Verdict::pass;
    false_fails += same.comparisons[0].verdict == Verdict::fail;
    CHECK(same.comparisons[0].baseline_count < 64);  // decided before the last pair
  }
  CHECK(fails == 20);
  CHECK(passes >= 18);
  CHECK(false_fails == 0);
  // A change of exactly tau FAILs where its estimate lands beyond tau (about half the time:
  // tau is the size that matters), and PASSes at most the PASS side's 5%.
  int at_tau = 0, at_tau_pass = 0;
  for (unsigned seed = 0; seed < 80; ++seed) {
    const auto v = simulate_ab(0.03, 0.01, 64, 200 + seed).comparisons[0].verdict;
    at_tau += v == Verdict::fail;
    at_tau_pass += v == Verdict::pass;
  }
  INFO("at tau: " << at_tau << " FAIL, " << at_tau_pass << " PASS of 80");
  CHECK(at_tau >= 16);
  CHECK(at_tau <= 64);
  CHECK(at_tau_pass <= 8);  // 5% of 80 is 4; 8 is 2 sds above
}

TEST_CASE("gate config: defaults, overrides per benchmark, bad files", "[gate]") {
  const auto dir = std::filesystem::temp_directory_path() / "rooftop_test_gate";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "g.json") << R"({"alpha": 0.01, "overrides": [{"match": "m16_", "tau": 0.25}]})";
  const auto c = load_gate_config(dir / "g.json");
  CHECK(c.alpha == 0.01);
  CHECK(c.tau_for("gemm/cpu/fp32/m16_n4096_k4096", "gemm") == 0.25);
  CHECK(c.tau_for("gemm/cpu/fp32/m256_n256_k256", "gemm") == 0.03);
  CHECK(c.tau_for("collectives/nccl/bf16/x", "collectives") == 0.05);
  std::ofstream(dir / "bad.json") << R"({"alpha": 2})";
  CHECK_THROWS_WITH(load_gate_config(dir / "bad.json"), Catch::Contains("bad.json") && Catch::Contains("alpha"));
  std::ofstream(dir / "bad2.json") << R"({"overrides": [{"match": "(", "tau": 1}]})";
  CHECK_THROWS_WITH(load_gate_config(dir / "bad2.json"), Catch::Contains("overrides[0].match"));
}
