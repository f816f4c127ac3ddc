// The kernel loop: each point becomes one Google Benchmark benchmark; its repetitions are
// the point's samples.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>

#include "harness/energy_window.hpp"
#include "harness/errors.hpp"
#include "harness/injected_slowdown.hpp"
#include "harness/measurement_loops.hpp"
#include "harness/name_filter.hpp"
#include "harness/printable_text.hpp"
#include "harness/random_fill.hpp"
#include "harness/roofline.hpp"

namespace rooftop {
namespace {

constexpr double kDeviceBatchSeconds = 200e-6;

struct KernelLoop {
  const RunOptions* options = nullptr;
  PointPipeline* pipeline = nullptr;
  std::unique_ptr<DeviceTimer> timer;  // null: the host's wall clock
  std::map<std::string, std::size_t> index_by_name;
  double inject_slowdown = 0;  // ROOFTOP_INJECT_SLOWDOWN: gate calibration only
  // ROOFTOP_INJECT_SLOWDOWN_MATCH: only the points whose names it matches are slowed (a
  // regression in some kernels; a slowdown of all is the gate's suite-wide shift).
  std::optional<NameFilter> inject_only;
  double slowdown_of(std::string_view name) const {
    return inject_only && !inject_only->matches(name) ? 0.0 : inject_slowdown;
  }
};

// Cold timing (cache flushed before each timed launch) for device work whose data the cache
// could hold in part (the roofline's residency rule), unless the user chose: a decode step
// reads each layer's weights once, from memory, not from a cache the last launch warmed.
bool times_cold(const KernelLoop& loop, const Problem& p) {
  switch (loop.options->cache) {
    case CachePolicy::cold: return true;
    case CachePolicy::warm: return false;
    case CachePolicy::automatic: return loop.timer && p.work.bytes <= kResidencyFactor * loop.timer->cache_bytes();
  }
  return false;
}

void measure(KernelLoop& loop, std::size_t i, benchmark::State& state) {
  auto& pipe = *loop.pipeline;
  // After Ctrl-C no new point starts; the one in flight finishes its repetitions, since
  // Google Benchmark cannot summarize a benchmark whose repetitions were cut short.
  if (!pipe.prepared(i) && g_interrupted.load()) {
    state.SkipWithError("interrupted");
    return;
  }
  if (!pipe.prepared(i)) {
    if (loop.timer)
      pipe.measured(i).cache = times_cold(loop, pipe.problem(i)) ? "cold (flushed before each launch)" : "warm";
    pipe.prepare(i, SetupContext{derive_seed(loop.options->seed, pipe.problem(i).name())});
  }
  if (pipe.record(i).status != Status::ok) {
    state.SkipWithError(pipe.record(i).reason.c_str());
    return;
  }
  auto& instance = pipe.instance(i);
  const auto& work = pipe.problem(i).work;
  int launches = 1;  // device launches per Google Benchmark iteration
  const double slowdown = loop.slowdown_of(pipe.problem(i).name());
  const EnergyWindow energy(pipe.backend());
  try {
    if (loop.timer) {
      // Device time of each launch; the injected slowdown scales it exactly.
      // Warm launches run in batches of about kDeviceBatchSeconds, as a hand-written loop
      // times them: the events' own cost (about a microsecond) then stays out. A Google
      // Benchmark iteration is one batch; the sample divides by its launches.
      const bool cold = times_cold(loop, pipe.problem(i));
      const auto enqueue = [&] { instance.run(); };
      if (!cold) {
        const double probe = loop.timer->time(enqueue, false, 1);
        launches = std::clamp(static_cast<int>(kDeviceBatchSeconds / std::max(probe, 1e-9)), 1, 256);
      }
      for (auto _ : state)
        state.SetIterationTime(loop.timer->time(enqueue, cold, launches) * launches * (1.0 + slowdown));
    } else if (slowdown > 0) {
      // Calibration of the gate: a busy-wait inside the timed region, a fixed fraction of
      // each iteration's own time, so the slowdown is exact whatever the noise.
      for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        instance.run();
        const auto until = t0 + (std::chrono::steady_clock::now() - t0) * (1.0 + slowdown);
        while (std::chrono::steady_clock::now() < until) {
        }
      }
    } else {
      for (auto _ : state) instance.run();
    }
  } catch (const std::exception& e) {
    // A kernel fault in one point is recorded; the sweep goes on.
    pipe.refuse(i, Status::error, fmt::format("failed while timed: {}", e.what()));
    state.SkipWithError(pipe.record(i).reason.c_str());
    return;
  }
  state.counters["clock_mhz"] = pipe.backend().clock_mhz();
  Sample drawn;
  energy.close(drawn);
  state.counters["energy_j"] = drawn.energy_j;
  state.counters["wall_s"] = drawn.wall_s;
  state.counters["launches_per_iteration"] = launches;
  state.counters["FLOP/s"] = benchmark::Counter(work.flops * launches, benchmark::Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(static_cast<std::int64_t>(work.bytes * launches * static_cast<double>(state.iterations())));
}

// Keeps every repetition of every point as a sample; the pipeline saves after each point.
class SampleCollector : public benchmark::BenchmarkReporter {
 public:
  explicit SampleCollector(KernelLoop& loop) : loop_(loop) {}
  bool ReportContext(const Context&) override { return true; }

  void ReportRuns(const std::vector<Run>& runs) override {
    if (runs.empty()) return;
    const auto it = loop_.index_by_name.find(runs.front().run_name.function_name);
    if (it == loop_.index_by_name.end()) return;
    const std::size_t i = it->second;
    auto& pipe = *loop_.pipeline;
    // Not started (interrupted), or already final: Google Benchmark reports aggregates later.
    if (!pipe.prepared(i) || pipe.finished(i)) return;
    if (std::all_of(runs.begin(), runs.end(), [](const Run& r) { return r.run_type == Run::RT_Aggregate; })) return;
    std::vector<Sample> samples;
    for (const auto& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred || run.iterations <= 0) continue;
      const auto clock = run.counters.find("clock_mhz");
      const auto batch = run.counters.find("launches_per_iteration");
      const double launches = batch == run.counters.end() ? 1.0 : batch->second.value;
      const auto count = static_cast<std::int64_t>(static_cast<double>(run.iterations) * launches);
      const auto counter = [&](const char* name) {
        const auto c = run.counters.find(name);
        return c == run.counters.end() ? 0.0 : c->second.value;
      };
      samples.push_back({run.real_accumulated_time / static_cast<double>(count), count,
                         clock == run.counters.end() ? 0.0 : clock->second.value, counter("energy_j"), counter("wall_s")});
    }
    if (pipe.record(i).status == Status::ok && samples.empty()) {
      if (g_interrupted.load()) return;  // cut short: not a result
      if (!runs.front().error_message.empty()) pipe.refuse(i, Status::error, runs.front().error_message);
    }
    pipe.finish(i, std::move(samples));
  }

 private:
  KernelLoop& loop_;
};

}  // namespace

void run_kernel_loop(const RunOptions& o, PointPipeline& pipeline) {
  KernelLoop loop;
  loop.options = &o;
  loop.pipeline = &pipeline;
  loop.timer = pipeline.backend().make_timer();
  for (std::size_t i = 0; i < pipeline.size(); ++i) loop.index_by_name[pipeline.problem(i).name()] = i;

  // Google Benchmark parses its own flags; rooftop's defaults come first so a user's
  // --benchmark_* flag given on the command line wins.
  std::vector<std::string> args = {"rooftop", fmt::format("--benchmark_repetitions={}", o.repetitions),
                                   fmt::format("--benchmark_min_time={}", o.min_time_s.value_or(default_min_time(o.tier)))};
  // --benchmark_filter was applied to the plan already (harness/runner.cpp, by RE2).
  for (const auto& a : o.benchmark_args)
    if (!a.starts_with("--benchmark_filter=")) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  if (argc > 1) throw InputError(fmt::format("unknown Google Benchmark flag '{}'", argv[1]));

  // Checked, and kept in the results, before the first results file is written: a slowed
  // run says so, and is refused as a baseline or a night of history.
  if (const auto injected = injected_slowdown_from_environment()) {
    loop.inject_slowdown = injected->fraction;
    if (!injected->match.empty()) loop.inject_only.emplace(injected->match, "ROOFTOP_INJECT_SLOWDOWN_MATCH");
    pipeline.metadata().injected_slowdown = injected;
    fmt::print(stderr, "rooftop: note: injecting a {:.1f}% slowdown into every timed iteration{} (gate calibration: "
               "the results record it; baseline update and history add refuse them)\n",
               100 * loop.inject_slowdown,
               injected->match.empty() ? "" : fmt::format(" of the points matching '{}'", printable_text(injected->match)));
  }
  pipeline.start();
  benchmark::ClearRegisteredBenchmarks();
  for (std::size_t i = 0; i < pipeline.size(); ++i) {
    auto* b = benchmark::RegisterBenchmark(pipeline.problem(i).name().c_str(),
                                           [&loop, i](benchmark::State& st) { measure(loop, i, st); });
    b->Unit(benchmark::kMicrosecond);
    if (loop.timer) b->UseManualTime();
    else b->UseRealTime();
  }

  SampleCollector collector(loop);
  benchmark::RunSpecifiedBenchmarks(&collector);
}

}  // namespace rooftop
