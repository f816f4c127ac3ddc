// Does the harness change a GPU number? Times the same cuBLASLt matmul through the full
// rooftop path (Google Benchmark, the CUDA timer with its spin and per-launch events,
// samples, saves) and through a bare loop: CUDA events around back-to-back launches, as
// one would time cuBLASLt by hand. Same process, same algorithm, rounds interleaved.
// A benchmark whose output is recorded in docs/PERFORMANCE.md, not a test.
//
// Each measurement starts from an idle GPU (a pause first): under the 700 W cap the clock a
// GPU holds depends on how long it has been busy, and the comparison is about the timing
// path, not about which side ran hotter.
//
// usage: rooftop_bare_cublaslt_benchmark [MxNxK[,MxNxK...]] [dtype[,dtype...]] [rounds] [pause_s]
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <sstream>
#include <vector>

#include "devices/cuda/cublaslt_matmul.hpp"
#include "devices/cuda/gpu_kernels.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "devices/devices.hpp"
#include "harness/backend.hpp"
#include "harness/runner.hpp"
#include "harness/statistics.hpp"
#include "suites/gemm/gemm_problem.hpp"

using namespace rooftop;

namespace {
std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string p; std::getline(in, p, ',');) parts.push_back(p);
  return parts;
}

// Events around `launches` back-to-back products after a warm-up: seconds per product.
double bare_loop(gpu::CublasLtMatmul& mm, int launches) {
  for (int i = 0; i < 5; ++i) mm.execute();
  cudaEvent_t start, stop;
  ROOFTOP_GPU_CHECK(cudaEventCreate(&start));
  ROOFTOP_GPU_CHECK(cudaEventCreate(&stop));
  ROOFTOP_GPU_CHECK(cudaEventRecord(start, gpu::stream()));
  for (int i = 0; i < launches; ++i) mm.execute();
  ROOFTOP_GPU_CHECK(cudaEventRecord(stop, gpu::stream()));
  ROOFTOP_GPU_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  ROOFTOP_GPU_CHECK(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms * 1e-3 / launches;
}
}  // namespace

int main(int argc, char** argv) {
  const auto shapes = split(argc > 1 ? argv[1] : "8192x8192x8192");
  const auto dtypes = split(argc > 2 ? argv[2] : "bf16");
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  const auto pause = std::chrono::duration<double>(argc > 4 ? std::atof(argv[4]) : 2.0);
  register_all_backends();
  const auto& backend = find_backend("cuda");
  fmt::print("{}\n", backend.summary());
  for (const auto& shape_text : shapes)
    for (const auto& dtype : dtypes) try {
      const auto shape = gemm::parse_gemm_shape(shape_text);
      const auto problem = gemm::make_gemm_problem(shape, parse_dtype(dtype), "cuda", "user");
      gpu::CublasLtMatmul mm(parse_dtype(dtype), shape.m, shape.n, shape.k);
      gpu::fill_uniform(parse_dtype(dtype), mm.a(), static_cast<std::size_t>(shape.m * shape.k), 1, -1, 1);
      gpu::fill_uniform(parse_dtype(dtype), mm.b(), static_cast<std::size_t>(shape.n * shape.k), 2, -1, 1);
      // As long a stretch of launches as the harness's ten repetitions: under a power cap
      // the clock a GPU holds depends on how long it has been busy.
      const double estimate = bare_loop(mm, 5);
      const int launches = std::max(20, static_cast<int>(0.25 / estimate));

      RunOptions o;
      o.suites = {"gemm"};
      o.backend = "cuda";
      o.shapes = {shape_text};
      o.dtypes = {dtype};
      o.repetitions = 10;
      o.min_time_s = 0.025;
      o.cache = CachePolicy::warm;  // as the bare loop runs: back to back, caches as the last launch left them
      o.seed = 1;
      o.out = "bare-cublaslt-benchmark-results.json";
      std::vector<double> bare, harness;
      for (int round = 0; round < rounds; ++round) {
        std::this_thread::sleep_for(pause);
        bare.push_back(bare_loop(mm, launches));
        std::this_thread::sleep_for(pause);
        RunMetadata meta;
        meta.backend = "cuda";
        bool interrupted = false;
        const auto r = run_points(o, backend, meta, nullptr, interrupted);
        std::vector<double> t;
        for (const auto& s : r.results.at(0).samples) t.push_back(s.seconds_per_iteration);
        harness.push_back(t.empty() ? 0 : median(t));
      }
      const double b = median(bare), h = median(harness);
      fmt::print("{:<36} {}\n  bare loop {:9.4f} ms {:8.1f} TFLOP/s | rooftop {:9.4f} ms {:8.1f} TFLOP/s | rooftop/bare {:6.2f}%\n",
                 problem.name(), mm.algorithm(), b * 1e3, problem.work.flops / b / 1e12, h * 1e3,
                 problem.work.flops / h / 1e12, 100.0 * b / h);
    } catch (const std::exception& e) {
      fmt::print("{} {}: {}\n", shape_text, dtype, e.what());
    }
  return 0;
}
