// Does the harness cost anything? Times one GEMM point through the full rooftop path
// (Google Benchmark runner, sample reporter, progress, atomic saves) and through a bare
// loop over the same oneDNN matmul, in the same process, interleaved A B A B ... so drift
// hits both alike. Prints both medians and their ratio. Not a test: a benchmark, whose
// result is recorded in docs/PERFORMANCE.md.
//
// usage: rooftop_overhead_benchmark [MxNxK] [dtype] [rounds]
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <vector>

#include "devices/devices.hpp"
#include "harness/backend.hpp"
#include "harness/random_fill.hpp"
#include "harness/runner.hpp"
#include "harness/statistics.hpp"
#include "suites/gemm/gemm_cpu.hpp"
#include "suites/gemm/gemm_problem.hpp"

using namespace rooftop;

int main(int argc, char** argv) {
  const std::string shape_text = argc > 1 ? argv[1] : "2048x2048x2048";
  const std::string dtype = argc > 2 ? argv[2] : "bf16";
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  constexpr int kRepetitions = 10;
  register_all_backends();
  const auto& backend = find_backend("cpu");
  const auto problem = gemm::make_gemm_problem(gemm::parse_gemm_shape(shape_text), parse_dtype(dtype), "cpu", "user");

  // Bare: the same matmul, one timed execution after another, no harness in between.
  auto bare_instance = gemm::create_gemm_cpu(problem, 1);
  bare_instance->check();  // the same warm-up the harness gets
  auto bare = [&] {
    std::vector<double> t;
    for (int i = 0; i < kRepetitions; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      bare_instance->run();
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(t);
  };

  RunOptions o;
  o.suites = {"gemm"};
  o.shapes = {shape_text};
  o.dtypes = {dtype};
  o.tier = Tier::quick;
  o.repetitions = kRepetitions;
  o.seed = 1;
  o.out = "overhead-benchmark-results.json";
  auto harness = [&] {
    RunMetadata meta;
    meta.backend = "cpu";
    meta.fingerprint = backend.fingerprint();
    bool interrupted = false;
    const auto r = run_points(o, backend, meta, nullptr, interrupted);
    std::vector<double> t;
    for (const auto& s : r.results.at(0).samples) t.push_back(s.seconds_per_iteration);
    return median(t);
  };

  std::vector<double> bare_medians, harness_medians;
  for (int round = 0; round < rounds; ++round) {
    bare_medians.push_back(bare());
    harness_medians.push_back(harness());
    fmt::print(stderr, "round {}: bare {:.4f} ms, harness {:.4f} ms\n", round, bare_medians.back() * 1e3,
               harness_medians.back() * 1e3);
  }
  const double b = median(bare_medians), h = median(harness_medians);
  fmt::print("{} {} on {}\n", problem.name(), bare_instance->implementation(), backend.summary());
  fmt::print("bare loop: {:.4f} ms ({:.2f} GFLOP/s)\n", b * 1e3, problem.work.flops / b / 1e9);
  fmt::print("rooftop:   {:.4f} ms ({:.2f} GFLOP/s)\n", h * 1e3, problem.work.flops / h / 1e9);
  fmt::print("rooftop throughput / bare throughput: {:.2f}%\n", 100.0 * b / h);
  return 0;
}
