#include "devices/cpu/characterize.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <ostream>
#include <vector>

#include "devices/cpu/ceiling_kernels.hpp"
#include "devices/cpu/onednn_matmul.hpp"
#include "harness/errors.hpp"
#include "harness/random_fill.hpp"
#include "harness/statistics.hpp"

namespace rooftop::cpu {
namespace {
using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

volatile float g_sink;  // keeps kernel results alive

// All threads together below this fraction of threads x one thread: the machine is busy.
constexpr double kBusyMachineFraction = 0.85;  // idle: 0.91-0.95 seen; busy: 0.58-0.80

// Best of `trials` timed runs of `body`, in seconds.
template <typename F>
double best_time(int trials, F&& body) {
  double best = 1e300;
  for (int t = 0; t < trials; ++t) {
    const auto t0 = clock::now();
    body();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

std::optional<ComputeCeiling> measure_matrix_rate(Dtype type, const char* dtype, std::int64_t n,
                                                  const CharacterizeOptions& o);

ComputeCeiling measure_fma_peak(const CharacterizeOptions& o, std::ostream& log) {
  const FmaKernel kernel = best_fma_kernel();
  // Calibrate on one thread so that one trial takes about the target time.
  std::int64_t iterations = 1 << 20;
  const double probe = best_time(1, [&] { g_sink = run_fma_kernel(kernel, iterations, 1.0f); });
  const double target = o.quick ? 0.05 : 0.2;
  iterations = std::max<std::int64_t>(1024, static_cast<std::int64_t>(static_cast<double>(iterations) * target / probe));
  const int threads = omp_get_max_threads();
  auto all_threads = [&] {
    float total = 0;
#pragma omp parallel reduction(+ : total)
    total += run_fma_kernel(kernel, iterations, static_cast<float>(omp_get_thread_num()));
    g_sink = total;
  };
  all_threads();  // warm-up: wide-vector clock licences settle before timing
  const double t = best_time(o.quick ? 5 : 9, all_threads);
  const double flops = fma_kernel_flops(kernel, iterations) * threads / t;
  // Every core should add its share; if not, something else is running on them.
  const double one = best_time(3, [&] { g_sink = run_fma_kernel(kernel, iterations, 1.0f); });
  const double single_flops = fma_kernel_flops(kernel, iterations) / one;
  if (flops < kBusyMachineFraction * threads * single_flops)
    fmt::print(log, "  WARNING: {} threads reach {:.0f}% of {} x one thread's rate: other work is using the cores, "
               "so every ceiling of this profile will be too low. Re-run on an idle machine.\n",
               threads, 100.0 * flops / (threads * single_flops), threads);
  fmt::print(log, "  fp32 vector peak ({}, {} threads): {:.1f} GFLOP/s\n", kernel.unit, threads, flops / 1e9);
  return {"fp32_vector_fma", "fp32", kernel.unit, flops};
}

// The best rate over a few square sizes, all compute-bound: one size alone under-reads the
// peak (a smaller one may block better for the caches), as ERT takes the maximum.
std::optional<ComputeCeiling> measure_matrix_peak(Dtype type, const char* dtype, const CharacterizeOptions& o,
                                                  std::ostream& log) {
  std::optional<ComputeCeiling> best;
  for (std::int64_t n : {256, 512, 1024, 2048}) {
    auto c = measure_matrix_rate(type, dtype, n, o);
    if (!c) break;
    if (!best || c->flops_per_s > best->flops_per_s) best = c;
  }
  if (best) fmt::print(log, "  {} matrix peak ({}): {:.1f} GFLOP/s\n", dtype, best->unit, best->flops_per_s / 1e9);
  else fmt::print(log, "  {} matrix peak: none (oneDNN has no implementation on this CPU)\n", dtype);
  return best;
}

std::optional<ComputeCeiling> measure_matrix_rate(Dtype type, const char* dtype, std::int64_t n,
                                                  const CharacterizeOptions& o) {
  try {
    OnednnMatmul mm(type, n, n, n);
    if (type == Dtype::int8) {
      fill_uniform_int8({static_cast<std::int8_t*>(mm.a()), static_cast<std::size_t>(n * n)}, 1, -64, 64);
      fill_uniform_int8({static_cast<std::int8_t*>(mm.b()), static_cast<std::size_t>(n * n)}, 2, -64, 64);
    } else if (type == Dtype::fp32) {
      fill_uniform({static_cast<float*>(mm.a()), static_cast<std::size_t>(n * n)}, 1, -1, 1);
      fill_uniform({static_cast<float*>(mm.b()), static_cast<std::size_t>(n * n)}, 2, -1, 1);
    } else {
      fill_uniform_bf16({static_cast<std::uint16_t*>(mm.a()), static_cast<std::size_t>(n * n)}, 1, -1, 1);
      fill_uniform_bf16({static_cast<std::uint16_t*>(mm.b()), static_cast<std::size_t>(n * n)}, 2, -1, 1);
    }
    mm.pack_weights();
    mm.execute();  // warm-up
    const double t = best_time(o.quick ? 5 : 9, [&] { mm.execute(); });
    return ComputeCeiling{fmt::format("{}_matrix", dtype), dtype, mm.implementation(), 2.0 * n * n * n / t};
  } catch (const PointSkipped&) {
    return std::nullopt;
  }
}

double measure_dispatch_latency(std::ostream& log) {
  OnednnMatmul mm(Dtype::fp32, 1, 1, 1);
  fill_uniform({static_cast<float*>(mm.a()), 1}, 1, -1, 1);
  fill_uniform({static_cast<float*>(mm.b()), 1}, 2, -1, 1);
  mm.pack_weights();
  for (int i = 0; i < 100; ++i) mm.execute();
  std::vector<double> times;
  for (int i = 0; i < 1000; ++i) times.push_back(best_time(1, [&] { mm.execute(); }));
  const double latency = median(times);
  fmt::print(log, "  dispatch latency (1x1x1 oneDNN matmul): {:.2f} us\n", latency * 1e6);
  return latency;
}

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

// Read bandwidth of all threads, each over its own `per_thread_bytes` block: the better of
// plain loads and loads with software prefetch.
double read_bandwidth(std::size_t per_thread_bytes, const CharacterizeOptions& o) {
  const int threads = omp_get_max_threads();
  const std::size_t per_thread = std::max<std::size_t>(256, per_thread_bytes / sizeof(float) / 256 * 256);
  std::vector<std::unique_ptr<float, FreeDeleter>> blocks(threads);
#pragma omp parallel
  {  // each thread allocates and first-touches its own block (NUMA-local)
    const int t = omp_get_thread_num();
    blocks[t].reset(static_cast<float*>(std::aligned_alloc(64, per_thread * sizeof(float))));
    for (std::size_t i = 0; i < per_thread; ++i) blocks[t].get()[i] = 1.0f + static_cast<float>(i & 7);
  }
  // Passes per trial so that each trial moves at least ~64 MiB (16 MiB quick) per thread.
  const double min_bytes = o.quick ? 16.0 * (1 << 20) : 64.0 * (1 << 20);
  const int passes = static_cast<int>(std::max(1.0, min_bytes / static_cast<double>(per_thread * sizeof(float))));
  double t = 1e300;
  for (bool prefetch : {false, true}) {
    auto trial = [&] {
      float total = 0;
#pragma omp parallel reduction(+ : total)
      total += read_sum(blocks[omp_get_thread_num()].get(), per_thread, passes, prefetch);
      g_sink = total;
    };
    trial();  // warm-up: brings the block into the level under test
    t = std::min(t, best_time(o.quick ? 3 : 5, trial));
  }
  return static_cast<double>(per_thread * sizeof(float)) * passes * threads / t;
}

struct Level {
  std::string name;
  double per_thread_low = 0, per_thread_high = 0;  // working-set band per thread
  double capacity = 0;                             // aggregate; 0 = unbounded
};

// Working-set bands per thread that sit well inside each level (and well past the one before).
std::vector<Level> memory_levels(const CpuInfo& info, int threads) {
  std::vector<Level> levels;
  double previous = 0;
  for (const auto& c : info.caches) {
    const double aggregate = static_cast<double>(c.size_bytes) * c.instances;
    const double per_thread = aggregate / threads;
    levels.push_back({fmt::format("L{}", c.level), 2 * previous, 0.5 * per_thread, aggregate});
    previous = per_thread;
  }
  levels.push_back({"DRAM", std::max(4 * previous, 64.0 * (1 << 20) / threads), 1e300, 0});
  return levels;
}
}  // namespace

DeviceProfile characterize_cpu(const CpuInfo& info, const CharacterizeOptions& o, std::ostream& log) {
  auto p = new_profile("cpu", fingerprint(info), to_json(info), omp_get_max_threads());
  fmt::print(log, "characterizing {} ({} threads){}\n", info.model_name, p.threads, o.quick ? ", quick" : "");

  p.measured.compute.push_back(measure_fma_peak(o, log));
  if (auto c = measure_matrix_peak(Dtype::bf16, "bf16", o, log)) p.measured.compute.push_back(*c);
  if (auto c = measure_matrix_peak(Dtype::int8, "int8", o, log)) p.measured.compute.push_back(*c);
  p.measured.dispatch_latency_s = measure_dispatch_latency(log);

  const auto levels = memory_levels(info, p.threads);
  const double largest = std::max(levels.back().per_thread_low * 2, 8.0 * (1 << 10));
  for (double ws = 8.0 * (1 << 10); ws <= largest; ws *= o.quick ? 4 : 2) {
    const double bw = read_bandwidth(static_cast<std::size_t>(ws), o);
    p.bandwidth_sweep.push_back({ws * p.threads, bw});
  }
  for (const auto& level : levels) {
    double best = 0;
    for (const auto& s : p.bandwidth_sweep) {
      const double per_thread = s.working_set_bytes / p.threads;
      if (per_thread >= level.per_thread_low && per_thread <= level.per_thread_high) best = std::max(best, s.bytes_per_s);
    }
    if (best > 0) {
      p.measured.bandwidth.push_back({level.name, best, level.capacity});
      fmt::print(log, "  {} read bandwidth: {:.1f} GB/s\n", level.name, best / 1e9);
    } else {
      fmt::print(log, "  {} read bandwidth: no sweep point inside the level\n", level.name);
    }
  }
  return p;
}

}  // namespace rooftop::cpu
