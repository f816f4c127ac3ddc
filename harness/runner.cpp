#include "harness/runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <csignal>
#include <map>
#include <memory>
#include <new>
#include <set>

#include "harness/errors.hpp"
#include "harness/measurement_loops.hpp"
#include "harness/name_filter.hpp"
#include "harness/registry.hpp"

namespace rooftop {

std::atomic<bool> g_interrupted{false};

namespace {

extern "C" void on_sigint(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

bool has_backend(const Family& f, std::string_view backend) {
  const auto b = family_backends(f.name);
  return std::find(b.begin(), b.end(), backend) != b.end();
}

// The suites asked for, or the backend's kernel-loop suites: collectives need their ranks
// started and inference loads whole models, so both run when named.
std::vector<const Family*> selected_families(const RunOptions& o) {
  std::vector<const Family*> out;
  if (!o.suites.empty()) {
    for (std::size_t i = 0; i < o.suites.size(); ++i)
      if (std::find(o.suites.begin(), o.suites.begin() + static_cast<std::ptrdiff_t>(i), o.suites[i]) != o.suites.begin() + static_cast<std::ptrdiff_t>(i))
        throw InputError(fmt::format("suite '{}' is given twice: a run measures each point once; use --repetitions for "
                                     "more samples", o.suites[i]));
    for (const auto& s : o.suites) {
      const auto& f = find_family(s);
      if (!has_backend(f, o.backend))
        throw InputError(fmt::format("suite '{}' has no '{}' backend: choose one of {}", s, o.backend,
                                     fmt::join(family_backends(f.name), ", ")));
      out.push_back(&f);
    }
  } else {
    for (const auto& f : families())
      if (f.measurement == Measurement::kernel_loop && has_backend(f, o.backend)) out.push_back(&f);
    if (out.empty()) throw InputError(fmt::format("no suite runs on backend '{}'", o.backend));
  }
  // One measurement kind a run: a lockstep suite's ranks must run the same points, and
  // a scenario suite keeps its model in memory between points.
  for (const auto* f : out)
    if (f->measurement != out.front()->measurement) {
      const auto* own = f->measurement != Measurement::kernel_loop ? f : out.front();
      throw InputError(fmt::format("run --suite {} on its own: its points are measured by the {} loop, the others' by "
                                   "another", own->name, measurement_name(own->measurement)));
    }
  return out;
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
    } else if (arg.starts_with("--benchmark_min_time=")) {
      // Seconds ("0.5", "0.5s") or an iteration count ("100x"); Google Benchmark would call a
      // bad value an unknown flag.
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      const std::string_view unit(end);
      if (end == value.c_str() || !(unit.empty() || unit == "s" || unit == "x") || !std::isfinite(v) || v <= 0)
        throw InputError(fmt::format("{}: give seconds or an iteration count, e.g. --benchmark_min_time=0.5s or "
                                     "--benchmark_min_time=100x (or use --min-time)", arg));
    } else if (arg.starts_with("--benchmark_filter=")) {
      const NameFilter filter(value, "--benchmark_filter", true);
      const bool any = std::any_of(points.begin(), points.end(), [&](const Problem& p) { return filter.matches(p.name()); });
      if (!any) throw InputError(fmt::format("{} matches no point of this run (rooftop's --filter does the same)", arg));
    }
  }
}

// Google Benchmark's flag value: what follows '='.
std::string flag_value(const std::string& arg) {
  const auto eq = arg.find('=');
  return eq == std::string::npos ? std::string() : arg.substr(eq + 1);
}

// The lockstep and scenario loops are not Google Benchmark: they take the --benchmark_*
// flags that mean something there (repetitions, minimum time, filter) and refuse the
// others, never ignoring one silently.
RunOptions with_own_loop_flags(const RunOptions& o, Measurement kind) {
  RunOptions out = o;
  for (const auto& arg : o.benchmark_args) {
    const auto value = flag_value(arg);
    if (arg.starts_with("--benchmark_repetitions=")) {
      int n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || n < 1)
        throw InputError(fmt::format("{}: give a count of at least 1 (or use --repetitions)", arg));
      out.repetitions = n;
    } else if (arg.starts_with("--benchmark_min_time=")) {
      char* end = nullptr;
      const double seconds = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || !(std::string_view(end) == "" || std::string_view(end) == "s") ||
          !std::isfinite(seconds) || seconds <= 0)
        throw InputError(fmt::format("{}: give seconds, e.g. --benchmark_min_time=0.5s (or use --min-time)", arg));
      out.min_time_s = seconds;
    } else if (!arg.starts_with("--benchmark_filter=")) {
      throw InputError(fmt::format("{}: the {} loop of this suite is not Google Benchmark; it takes "
                                   "--benchmark_filter, --benchmark_repetitions and --benchmark_min_time only",
                                   arg.substr(0, arg.find('=')), measurement_name(kind)));
    }
  }
  return out;
}

// --benchmark_filter, as Google Benchmark applies it (a leading '-' negates), but matched
// here by RE2 for every kind of loop: Google Benchmark's own matcher backtracks.
void apply_benchmark_filter(const RunOptions& o, std::vector<Problem>& points) {
  for (const auto& arg : o.benchmark_args) {
    if (!arg.starts_with("--benchmark_filter=")) continue;
    const NameFilter filter(flag_value(arg), "--benchmark_filter", true);
    std::erase_if(points, [&](const Problem& p) { return !filter.matches(p.name()); });
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

void apply_tiles(const RunOptions& options, std::vector<Problem>& points) {
  for (auto& p : points) {
    const Family* family = family_named(p.family);
    if (!family || !family->tile_candidates || family->tile_candidates(p).empty()) continue;  // not tunable
    const auto it = options.tiles.find(p.name());
    if (it == options.tiles.end()) {
      p.tile_source = "default (no tuned tile for this device: rooftop tune)";
      continue;
    }
    p.tile = it->second.tile;
    p.tile_source = it->second.source;
  }
}

std::vector<Problem> plan_points(const RunOptions& o, double available, int ranks) {
  std::vector<Problem> planned;
  const NameFilter filter(o.filter, "--filter");
  const PlanContext context{o.tier, o.backend, ranks, o.prompt, o.slo, o.sweep_rate, available};
  std::vector<std::string> all_names, suite_names;
  std::set<std::string> seen;
  for (const auto* family : selected_families(o)) {
    suite_names.push_back(family->name);
    if (!o.prompt.empty() && family->prompt_shapes.empty()) {  // not silently ignored
      std::vector<std::string> takers;
      for (const auto& f : families())
        if (!f.prompt_shapes.empty()) takers.push_back(fmt::format("--suite {} --shape {}", f.name, f.prompt_shapes));
      throw InputError(fmt::format("--prompt gives a model's prompt its token ids; suite {} has no prompt{}: leave "
                                   "--prompt out{}", family->name,
                                   o.shapes.empty() ? "" : fmt::format(" (--shape {})", fmt::join(o.shapes, ",")),
                                   takers.empty() ? "" : fmt::format(", or run {}", fmt::join(takers, "; or "))));
    }
    std::vector<Dtype> dtypes;
    for (const auto& text : o.dtypes) {
      const auto named = find_dtype(text);
      const auto it = named ? std::find(family->dtypes.begin(), family->dtypes.end(), *named) : family->dtypes.end();
      if (it == family->dtypes.end()) {
        std::vector<std::string_view> names;
        for (Dtype d : family->dtypes) names.push_back(dtype_name(d));
        throw InputError(fmt::format("unknown dtype '{}' for suite '{}': choose one of {}", text, family->name,
                                     fmt::join(names, ", ")));
      }
      dtypes.push_back(*it);
    }
    std::vector<Problem> points;
    if (o.shapes.empty()) {
      for (auto& p : family->sweep(context))
        if (dtypes.empty() || std::find(dtypes.begin(), dtypes.end(), p.dtype) != dtypes.end()) points.push_back(std::move(p));
    } else {
      if (dtypes.empty()) dtypes = family->shape_dtypes.empty() ? family->dtypes : family->shape_dtypes;
      for (const auto& shape : o.shapes)
        for (Dtype d : dtypes)
          for (auto& p : family->shape_points(shape, d, context)) {
            if (available > 0 && p.memory_bytes > available)
              throw InputError(fmt::format("shape '{}' ({}) needs {:.1f} GiB but {:.1f} GiB of memory is available: "
                                           "choose a smaller shape", shape, dtype_name(d), p.memory_bytes / 0x1p30,
                                           available / 0x1p30));
            points.push_back(std::move(p));
          }
    }
    for (auto& p : points) {
      if (!seen.insert(p.name()).second)
        throw InputError(fmt::format("{} is asked for twice (a suite or shape given twice?): a run measures each point "
                                     "once; use --repetitions for more samples", p.name()));
      all_names.push_back(p.name());
      if (filter.matches(p.name())) planned.push_back(std::move(p));
    }
  }
  if (planned.empty() && all_names.empty())
    throw InputError(fmt::format("the {} tier has no {}point of {} on {}: choose another dtype, or give --shape",
                                 tier_name(o.tier), o.dtypes.empty() ? "" : fmt::format("{} ", fmt::join(o.dtypes, "/")),
                                 fmt::join(suite_names, ", "), o.backend));
  if (planned.empty())
    throw InputError(fmt::format("--filter '{}' matches no point; the points are: {}", o.filter, fmt::join(all_names, ", ")));
  return planned;
}

Measurement measurement_of(const RunOptions& o) { return selected_families(o).front()->measurement; }

bool runs_in_lockstep(const RunOptions& o) { return measurement_of(o) == Measurement::lockstep_ranks; }

RunResults run_points(const RunOptions& options, const Backend& backend, RunMetadata metadata, Transport* transport,
                      bool& interrupted) {
  for (const auto& arg : options.benchmark_args)
    if (arg.starts_with("--benchmark_report_aggregates_only") || arg.starts_with("--benchmark_display_aggregates_only"))
      throw InputError(arg + " would drop the repetitions rooftop keeps as samples: leave it out");
  const Measurement kind = measurement_of(options);
  if (kind == Measurement::lockstep_ranks && !transport) throw std::logic_error("a lockstep run needs its transport");
  if ((options.stages || options.trace) && kind != Measurement::scenario)
    throw InputError("--stages and --trace time the stages of a scenario suite (inference); this run measures kernels "
                     "or collectives: leave them out");
  const bool own_loop = kind != Measurement::kernel_loop;
  const RunOptions o = own_loop ? with_own_loop_flags(options, kind) : options;
  auto planned = plan_points(o, backend.available_memory_bytes(), transport ? transport->ranks() : 1);
  apply_tiles(options, planned);
  check_benchmark_flags(options, planned);
  apply_benchmark_filter(options, planned);

  const bool writer = !transport || transport->writes_results();
  PointPipeline pipeline(backend, std::move(metadata), std::move(planned), o.out, writer);
  if (!o.check) pipeline.skip_checks();
  g_interrupted.store(false);
  const auto previous = std::signal(SIGINT, on_sigint);
  switch (kind) {
    case Measurement::kernel_loop: run_kernel_loop(o, pipeline); break;
    case Measurement::lockstep_ranks: run_lockstep_loop(o, pipeline, *transport); break;
    case Measurement::scenario: run_scenario_loop(o, pipeline, transport); break;
  }
  std::signal(SIGINT, previous);
  interrupted = g_interrupted.load();
  return pipeline.take(!interrupted);
}

}  // namespace rooftop
