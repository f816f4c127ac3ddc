#include "harness/runner.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <csignal>
#include <map>
#include <memory>
#include <new>
#include <regex>
#include <set>

#include "harness/errors.hpp"
#include "harness/progress.hpp"
#include "harness/random_fill.hpp"
#include "harness/registry.hpp"
#include "harness/roofline.hpp"
#include "harness/statistics.hpp"
#include "harness/units.hpp"

namespace rooftop {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

// One planned point and what happened to it.
struct PointState {
  Problem problem;
  const Family* family = nullptr;
  std::unique_ptr<Instance> instance;
  bool prepared = false;
  bool reported = false;  // Google Benchmark reports aggregates in a later call: finalize once
  ResultRecord record;
};

struct RunContext {
  const RunOptions* options = nullptr;
  const Backend* backend = nullptr;
  std::vector<PointState> points;
  std::map<std::string, std::size_t> index_by_name;
  RunResults results;
  std::unique_ptr<Progress> progress;
  std::unique_ptr<DeviceTimer> timer;  // null: the host's wall clock
  double inject_slowdown = 0;  // ROOFTOP_INJECT_SLOWDOWN: gate calibration only
};

constexpr double kDeviceBatchSeconds = 200e-6;

// Cold timing (cache flushed before each timed launch) for device work whose data the cache
// could hold in part (the roofline's residency rule), unless the user chose: a decode step
// reads each layer's weights once, from memory, not from a cache the last launch warmed.
bool times_cold(const RunContext& ctx, const Problem& p) {
  switch (ctx.options->cache) {
    case CachePolicy::cold: return true;
    case CachePolicy::warm: return false;
    case CachePolicy::automatic: return ctx.timer && p.work.bytes <= kResidencyFactor * ctx.timer->cache_bytes();
  }
  return false;
}

void save_progress(RunContext& ctx) {
  if (ctx.options->out) save_results(*ctx.options->out, ctx.results);
}

// Set-up and correctness check, in the same process and on the same data as the timing.
void prepare(RunContext& ctx, PointState& pt) {
  pt.prepared = true;
  auto& rec = pt.record;
  const double available = ctx.backend->available_memory_bytes();
  if (available > 0 && pt.problem.memory_bytes > 0.9 * available) {
    rec.status = Status::skipped;
    rec.reason = fmt::format("needs {:.1f} GiB, {:.1f} GiB of {} memory is available",
                             pt.problem.memory_bytes / 0x1p30, available / 0x1p30, ctx.backend->name());
    return;
  }
  if (ctx.timer) rec.problem.params["cache"] = times_cold(ctx, pt.problem) ? "cold (flushed before each launch)" : "warm";
  try {
    pt.instance = pt.family->create(pt.problem, derive_seed(ctx.options->seed, pt.problem.name()));
    rec.implementation = pt.instance->implementation();
    rec.implementation_label = pt.instance->implementation_label();
    rec.correctness = pt.instance->check();
    if (!rec.correctness->passed) {
      rec.status = Status::failed;
      rec.reason = fmt::format("wrong results: error {:.3g}x the allowed bound ({}) at {}",
                               rec.correctness->max_error_ratio, rec.correctness->tolerance,
                               rec.correctness->worst_element);
    }
  } catch (const PointSkipped& e) {
    rec.status = Status::skipped;
    rec.reason = e.what();
  } catch (const std::bad_alloc&) {
    rec.status = Status::error;
    rec.reason = fmt::format("allocation of {:.2f} GiB failed", pt.problem.memory_bytes / 0x1p30);
  } catch (const std::exception& e) {
    rec.status = Status::error;
    rec.reason = e.what();
  }
  if (rec.status != Status::ok) pt.instance.reset();
}

void measure(RunContext& ctx, std::size_t i, benchmark::State& state) {
  auto& pt = ctx.points[i];
  // After Ctrl-C no new point starts; the one in flight finishes its repetitions, since
  // Google Benchmark cannot summarize a benchmark whose repetitions were cut short.
  if (!pt.prepared && g_interrupted.load()) {
    state.SkipWithError("interrupted");
    return;
  }
  if (!pt.prepared) {
    ctx.progress->started(pt.problem.name());
    prepare(ctx, pt);
  }
  if (pt.record.status != Status::ok) {
    state.SkipWithError(pt.record.reason.c_str());
    return;
  }
  int launches = 1;  // device launches per Google Benchmark iteration
  try {
    if (ctx.timer) {
      // Device time of each launch; the injected slowdown scales it exactly.
      // Warm launches run in batches of about kDeviceBatchSeconds, as a hand-written loop
      // times them: the events' own cost (about a microsecond) then stays out. A Google
      // Benchmark iteration is one batch; the sample divides by its launches.
      const bool cold = times_cold(ctx, pt.problem);
      const auto enqueue = [&] { pt.instance->run(); };
      if (!cold) {
        const double probe = ctx.timer->time(enqueue, false, 1);
        launches = std::clamp(static_cast<int>(kDeviceBatchSeconds / std::max(probe, 1e-9)), 1, 256);
      }
      for (auto _ : state)
        state.SetIterationTime(ctx.timer->time(enqueue, cold, launches) * launches * (1.0 + ctx.inject_slowdown));
    } else if (ctx.inject_slowdown > 0) {
      // Calibration of the gate: a busy-wait inside the timed region, a fixed fraction of
      // each iteration's own time, so the slowdown is exact whatever the noise.
      for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        pt.instance->run();
        const auto until = t0 + (std::chrono::steady_clock::now() - t0) * (1.0 + ctx.inject_slowdown);
        while (std::chrono::steady_clock::now() < until) {
        }
      }
    } else {
      for (auto _ : state) pt.instance->run();
    }
  } catch (const std::exception& e) {
    // A kernel fault in one point is recorded; the sweep goes on.
    pt.record.status = Status::error;
    pt.record.reason = fmt::format("failed while timed: {}", e.what());
    state.SkipWithError(pt.record.reason.c_str());
    return;
  }
  state.counters["clock_mhz"] = ctx.backend->clock_mhz();
  state.counters["launches_per_iteration"] = launches;
  state.counters["FLOP/s"] = benchmark::Counter(pt.problem.work.flops * launches, benchmark::Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(static_cast<std::int64_t>(pt.problem.work.bytes * launches * static_cast<double>(state.iterations())));
}

// The median time and the rate that the point's roof bounds (TB/s for a memory-bound point).
std::string outcome_line(const ResultRecord& rec, const std::optional<Ceilings>& ceilings) {
  if (rec.status != Status::ok) return fmt::format("{} ({})", status_name(rec.status), rec.reason);
  std::vector<double> secs;
  for (const auto& s : rec.samples) secs.push_back(s.seconds_per_iteration);
  if (secs.empty()) return "no samples";
  const double med = median(secs);
  const auto& work = rec.problem.work;
  std::optional<RooflinePlacement> place;
  const bool cold = rec.problem.params.value("cache", std::string()).starts_with("cold");
  if (ceilings) place = place_on_roofline(*ceilings, rec.problem.dtype, work, med, cold);
  return fmt::format("{}, {}", format_duration(med),
                     bound_rate(rec.problem.dtype, place ? bound_name(place->bound) : "", work.flops / med,
                                work.bytes / med, place ? place->compute_peak : 0, place ? place->bandwidth : 0));
}

// Keeps every repetition of every point as a sample and saves after each point.
class SampleCollector : public benchmark::BenchmarkReporter {
 public:
  explicit SampleCollector(RunContext& ctx) : ctx_(ctx) {}
  bool ReportContext(const Context&) override { return true; }

  void ReportRuns(const std::vector<Run>& runs) override {
    if (runs.empty()) return;
    const auto it = ctx_.index_by_name.find(runs.front().run_name.function_name);
    if (it == ctx_.index_by_name.end()) return;
    auto& pt = ctx_.points[it->second];
    if (!pt.prepared || pt.reported) return;  // not started (interrupted), or already final
    const bool only_aggregates = std::all_of(runs.begin(), runs.end(), [](const Run& r) { return r.run_type == Run::RT_Aggregate; });
    if (only_aggregates) return;
    auto rec = pt.record;
    for (const auto& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred || run.iterations <= 0) continue;
      const auto clock = run.counters.find("clock_mhz");
      const auto batch = run.counters.find("launches_per_iteration");
      const double launches = batch == run.counters.end() ? 1.0 : batch->second.value;
      const auto count = static_cast<std::int64_t>(static_cast<double>(run.iterations) * launches);
      rec.samples.push_back({run.real_accumulated_time / static_cast<double>(count), count,
                             clock == run.counters.end() ? 0.0 : clock->second.value});
    }
    if (rec.status == Status::ok && rec.samples.empty()) {
      if (g_interrupted.load()) return;  // cut short: not a result
      rec.status = Status::error;
      rec.reason = runs.front().error_message.empty() ? "no repetition completed" : runs.front().error_message;
    }
    pt.reported = true;
    pt.instance.reset();  // free its memory before the next point
    ctx_.progress->finished(pt.problem.name(), outcome_line(rec, ctx_.results.meta.ceilings));
    ctx_.results.results.push_back(std::move(rec));
    save_progress(ctx_);
  }

 private:
  RunContext& ctx_;
};

std::vector<std::string> selected_suites(const RunOptions& o) {
  std::vector<std::string> names;
  if (!o.suites.empty()) {
    for (const auto& s : o.suites) {
      const auto& f = find_family(s);
      if (std::find(f.backends.begin(), f.backends.end(), o.backend) == f.backends.end())
        throw InputError(fmt::format("suite '{}' has no '{}' backend: choose one of {}", s, o.backend,
                                     fmt::join(f.backends, ", ")));
      names.push_back(f.name);
    }
    return names;
  }
  for (const auto& f : families())
    if (std::find(f.backends.begin(), f.backends.end(), o.backend) != f.backends.end()) names.push_back(f.name);
  if (names.empty()) throw InputError(fmt::format("no suite runs on backend '{}'", o.backend));
  return names;
}

// Google Benchmark takes --benchmark_repetitions=0 as "none" and a negative count as a
// crash, and a --benchmark_filter that matches nothing as an empty, "complete" run: all
// are refused here, before anything (an existing --out) is written.
void check_benchmark_flags(const RunOptions& o, const std::vector<Problem>& points) {
  for (const auto& arg : o.benchmark_args) {
    const auto value = arg.substr(arg.find('=') == std::string::npos ? arg.size() : arg.find('=') + 1);
    if (arg.starts_with("--benchmark_repetitions=")) {
      int n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || n < 1)
        throw InputError(fmt::format("{}: give a count of at least 1 (or use --repetitions)", arg));
    } else if (arg.starts_with("--benchmark_filter=")) {
      const bool negative = value.starts_with("-");
      std::regex re;
      try {
        re = std::regex(negative ? value.substr(1) : value);
      } catch (const std::regex_error& e) {
        throw InputError(fmt::format("{} is not a valid regular expression ({})", arg, e.what()));
      }
      const bool any = std::any_of(points.begin(), points.end(),
                                   [&](const Problem& p) { return std::regex_search(p.name(), re) != negative; });
      if (!any) throw InputError(fmt::format("{} matches no point of this run (rooftop's --filter does the same)", arg));
    }
  }
}
}  // namespace

double default_min_time(Tier tier) {
  switch (tier) {
    case Tier::smoke: return 0.005;
    case Tier::quick: return 0.02;
    case Tier::full: return 0.2;
  }
  return 0.02;
}

std::vector<Problem> plan_points(const RunOptions& o, double available) {
  std::vector<Problem> planned;
  std::regex filter;
  try {
    filter = std::regex(o.filter.empty() ? std::string(".*") : o.filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw InputError(fmt::format("--filter '{}' is not a valid regular expression ({})", o.filter, e.what()));
  }
  std::vector<std::string> all_names;
  std::set<std::string> seen;
  for (const auto& suite : selected_suites(o)) {
    const auto& family = find_family(suite);
    for (const auto& d : o.dtypes)
      if (std::find(family.dtypes.begin(), family.dtypes.end(), d) == family.dtypes.end())
        throw InputError(fmt::format("unknown dtype '{}' for suite '{}': choose one of {}", d, suite,
                                     fmt::join(family.dtypes, ", ")));
    const auto& dtypes = o.dtypes.empty() ? family.dtypes : o.dtypes;
    std::vector<Problem> points;
    if (o.shapes.empty()) {
      for (auto& p : family.sweep(o.tier, o.backend))
        if (std::find(dtypes.begin(), dtypes.end(), p.dtype) != dtypes.end()) points.push_back(std::move(p));
    } else {
      for (const auto& shape : o.shapes)
        for (const auto& d : dtypes) {
          auto p = family.make_problem(shape, d, o.backend);
          if (available > 0 && p.memory_bytes > available)
            throw InputError(fmt::format("shape '{}' ({}) needs {:.1f} GiB but {:.1f} GiB of memory is available: "
                                         "choose a smaller shape", shape, d, p.memory_bytes / 0x1p30, available / 0x1p30));
          points.push_back(std::move(p));
        }
    }
    for (auto& p : points) {
      if (!seen.insert(p.name()).second)
        throw InputError(fmt::format("{} is asked for twice (a suite or shape given twice?): a run measures each point "
                                     "once; use --repetitions for more samples", p.name()));
      all_names.push_back(p.name());
      if (std::regex_search(p.name(), filter)) planned.push_back(std::move(p));
    }
  }
  if (planned.empty() && all_names.empty())
    throw InputError(fmt::format("the {} tier has no {}point of {} on {}: choose another dtype, or give --shape",
                                 tier_name(o.tier), o.dtypes.empty() ? "" : fmt::format("{} ", fmt::join(o.dtypes, "/")),
                                 fmt::join(selected_suites(o), ", "), o.backend));
  if (planned.empty())
    throw InputError(fmt::format("--filter '{}' matches no point; the points are: {}", o.filter, fmt::join(all_names, ", ")));
  return planned;
}

RunResults run_points(const RunOptions& o, const Backend& backend, RunMetadata metadata, bool& interrupted) {
  for (const auto& arg : o.benchmark_args)
    if (arg.starts_with("--benchmark_report_aggregates_only") || arg.starts_with("--benchmark_display_aggregates_only"))
      throw InputError(arg + " would drop the repetitions rooftop keeps as samples: leave it out");
  auto planned = plan_points(o, backend.available_memory_bytes());
  check_benchmark_flags(o, planned);

  RunContext ctx;
  ctx.options = &o;
  ctx.backend = &backend;
  ctx.results.meta = std::move(metadata);
  ctx.timer = backend.make_timer();
  for (auto& p : planned) {
    PointState pt;
    pt.family = &find_family(p.family);
    pt.record.problem = p;
    pt.problem = std::move(p);
    ctx.index_by_name[pt.problem.name()] = ctx.points.size();
    ctx.points.push_back(std::move(pt));
  }

  // Google Benchmark parses its own flags; rooftop's defaults come first so a user's
  // --benchmark_* flag given on the command line wins.
  std::vector<std::string> args = {"rooftop", fmt::format("--benchmark_repetitions={}", o.repetitions),
                                   fmt::format("--benchmark_min_time={}", o.min_time_s.value_or(default_min_time(o.tier)))};
  args.insert(args.end(), o.benchmark_args.begin(), o.benchmark_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  if (argc > 1) throw InputError(fmt::format("unknown Google Benchmark flag '{}'", argv[1]));

  benchmark::ClearRegisteredBenchmarks();
  for (std::size_t i = 0; i < ctx.points.size(); ++i) {
    auto* b = benchmark::RegisterBenchmark(ctx.points[i].problem.name().c_str(),
                                           [&ctx, i](benchmark::State& st) { measure(ctx, i, st); });
    b->Unit(benchmark::kMicrosecond);
    if (ctx.timer) b->UseManualTime();
    else b->UseRealTime();
  }

  if (const char* inject = std::getenv("ROOFTOP_INJECT_SLOWDOWN"); inject && *inject) {
    ctx.inject_slowdown = std::atof(inject);
    if (!(ctx.inject_slowdown > 0 && ctx.inject_slowdown < 10))
      throw InputError(fmt::format("ROOFTOP_INJECT_SLOWDOWN={}: give a fraction such as 0.05", inject));
    fmt::print(stderr, "rooftop: note: injecting a {:.1f}% slowdown into every timed iteration (gate calibration)\n",
               100 * ctx.inject_slowdown);
  }
  ctx.progress = std::make_unique<Progress>(static_cast<int>(ctx.points.size()));
  g_interrupted.store(false);
  const auto previous = std::signal(SIGINT, on_sigint);
  save_progress(ctx);  // an empty, valid file from the start
  SampleCollector collector(ctx);
  benchmark::RunSpecifiedBenchmarks(&collector);
  std::signal(SIGINT, previous);
  ctx.progress.reset();

  interrupted = g_interrupted.load();
  ctx.results.meta.complete = !interrupted;
  save_progress(ctx);
  return std::move(ctx.results);
}

}  // namespace rooftop
