// The night test (harness/night_test.hpp) through the gate, on simulated nights of a suite
// shaped as the H200's GEMMs: 18 kernels whose night-to-night spreads run from 0.2% to 3%,
// 3 baseline nights. It must FAIL 5% in 4 kernels in most nights, keep unchanged nights
// green, and stay out of a group of kernels that moves together.
#include <catch2/catch.hpp>
#include <cmath>
#include <algorithm>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "harness/exit_codes.hpp"
#include "harness/gate_exit.hpp"
#include "harness/night_test.hpp"
#include "harness/run_unit_gate.hpp"

using namespace rooftop;

namespace {

constexpr int kKernels = 18;

ResultRecord point(int b, double seconds) {
  ResultRecord r;
  r.problem.family = "gemm";
  r.problem.backend = "cuda";
  r.problem.dtype = Dtype::bf16;
  r.problem.shape = fmt::format("m{}_n4096_k4096", b + 1);
  for (int i = 0; i < 10; ++i) r.samples.push_back({seconds * (1 + 0.0005 * (i - 5)), 100, 0});
  return r;
}
std::string name_of(int b) { return fmt::format("gemm/cuda/bf16/m{}_n4096_k4096", b + 1); }

// Log-spaced night-to-night spreads, 0.2% to 3% (the H200's 0.21% to 3.05%); `group` kernels
// (the first ones) also share a factor of `group_sd` from night to night.
struct Nights {
  std::mt19937_64 rng;
  int group = 0;
  double group_sd = 0;
  explicit Nights(std::uint64_t seed) : rng(seed) {}
  double spread(int b) const { return 0.002 * std::pow(15.0, b / (kKernels - 1.0)); }
  std::vector<double> night(double group_factor) {
    std::vector<double> s;
    for (int b = 0; b < kKernels; ++b)
      s.push_back(1e-3 * std::exp(std::normal_distribution<double>(0, spread(b))(rng) + (b < group ? group_factor : 0)));
    return s;
  }
  double group_draw() { return std::normal_distribution<double>(0, group_sd)(rng); }
  RunUnitBaseline baseline(int runs) {
    RunUnitBaseline base{"nights", runs, {}};
    for (int r = 0; r < runs; ++r) {
      const auto s = night(group_draw());
      for (int b = 0; b < kKernels; ++b) base.medians_s[name_of(b)].push_back(s[static_cast<std::size_t>(b)]);
    }
    return base;
  }
  RunResults tonight(const std::vector<int>& slowed, double slowdown, double group_factor) {
    const auto s = night(group_factor);
    RunResults run;
    for (int b = 0; b < kKernels; ++b) {
      const bool hit = std::find(slowed.begin(), slowed.end(), b) != slowed.end();
      run.results.push_back(point(b, s[static_cast<std::size_t>(b)] * (hit ? 1 + slowdown : 1)));
    }
    return run;
  }
};

}  // namespace

TEST_CASE("the night test: 5% in 4 of 18 unlike kernels FAILs from 3 nights, unchanged nights stay green",
          "[gate][night-test]") {
  GateConfig config;  // alpha 1%, tau 3%
  Nights nights(20261129);
  int failed = 0, named_right = 0, named_wrong = 0;
  constexpr int kSlowedNights = 40;
  for (int n = 0; n < kSlowedNights; ++n) {
    // Four kernels at random, as the target takes them.
    std::vector<int> all(kKernels);
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), nights.rng);
    const std::vector<int> slowed(all.begin(), all.begin() + 4);
    const auto report = gate_against_runs(nights.baseline(3), nights.tonight(slowed, 0.05, 0), config, "night");
    failed += gate_exit(report).code == kExitFailure;
    for (const auto& c : report.comparisons) {
      if (c.verdict != Verdict::fail) continue;
      bool hit = false;
      for (int b : slowed) hit = hit || c.name == name_of(b);
      (hit ? named_right : named_wrong) += 1;
    }
  }
  // Each kernel's own test alone FAILs about half of such nights (docs/gate.md's table,
  // "unlike kernels" at 3 runs); the night test about all of them.
  INFO("slowed nights failed " << failed << " right " << named_right << " wrong " << named_wrong);
  CHECK(failed >= 17);
  CHECK(named_right >= failed);
  CHECK(named_wrong <= 2);

  int aa_failed = 0;
  for (int n = 0; n < 60; ++n)
    aa_failed += gate_exit(gate_against_runs(nights.baseline(3), nights.tonight({}, 0, 0), config, "aa")).code ==
                 kExitFailure;
  INFO("aa failed " << aa_failed);
  CHECK(aa_failed <= 3);  // 1% of nights expected: 0.6 of 60
}

TEST_CASE("the night test stays out of a group of kernels that moves together", "[gate][night-test]") {
  // Six kernels share a 3% factor from night to night: tonight it stands at +2.5 of its sds,
  // as it will on one night in 160. Each member alone looks like a moderate slowdown, and six
  // at once look, to a test that counts them as independent, like a real change; their
  // common move is no larger than their common spread over the baseline nights says it may be.
  GateConfig config;
  Nights nights(20261130);
  nights.group = 6;
  nights.group_sd = 0.03;
  int failed = 0;
  for (int n = 0; n < 30; ++n)
    failed += gate_exit(gate_against_runs(nights.baseline(3), nights.tonight({}, 0, 2.5 * 0.03), config, "group"))
                  .code == kExitFailure;
  INFO("group failed " << failed);
  CHECK(failed <= 7);  // 6 with the common-spread check, 11 without it
}
