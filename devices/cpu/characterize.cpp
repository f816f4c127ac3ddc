#include "devices/cpu/characterize.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <thread>
#include <type_traits>
#include <vector>

#include "devices/cpu/ceiling_kernels.hpp"
#include "devices/cpu/onednn_matmul.hpp"
#include "harness/ceiling_trials.hpp"
#include "harness/errors.hpp"
#include "harness/random_fill.hpp"
#include "harness/statistics.hpp"
#include "harness/system_state.hpp"

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

// Best of short runs of `body` repeated for at least `min_s` seconds (and `min_runs` runs).
// On a shared host the scheduler hands each CPU around in slices of a few milliseconds: a
// run that ends within one slice while all our threads hold a CPU shows the machine's
// rate, one that spans a slice given to another process shows half of it or less. (A 35 us
// L1 pass timed three times read 2.8 GB/s of 960 beside a busy compiler: every pass waited
// for a thread to be scheduled.)
// A run is clean when our threads held a CPU for nearly all of it: their CPU time over the
// run is at least this share of threads x its wall time. Two disturbed trials can
// agree (a fp32 peak settled at 68 GFLOP/s of 535, every pass waiting for a thread to be
// scheduled), so only clean trials settle a ceiling.
constexpr double kCleanCpuShare = 0.8;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The CPU time of the OpenMP team that runs the kernels (oneDNN's too), each thread reading
// its own clock: the process clock advances other threads' time only at scheduler ticks
// (4 ms at HZ=250), too coarse for a 2 ms pass.
double team_cpu_seconds(int threads) {
  if (threads <= 1) return thread_cpu_seconds();
  std::vector<double> cpu(static_cast<std::size_t>(threads), 0.0);
#pragma omp parallel num_threads(threads)
  cpu[static_cast<std::size_t>(omp_get_thread_num())] = thread_cpu_seconds();
  double total = 0;
  for (double c : cpu) total += c;
  return total;
}

struct Timed {
  double seconds = 1e300;  // the fastest run
  bool clean = false;      // that run was clean
};

// One trial of a ceiling: its rate, and whether the run that gave it was clean.
struct Trial {
  double rate = 0;
  bool clean = false;
};

// A body may also say whether its threads ran at the same time (it returns that as a bool):
// the CPU clocks alone count a thread that spins at the join, so a pass where one thread read
// alone while the other waited looked clean (DRAM read one thread's 35-48 GB/s of 70, clean).
template <typename F>
Timed best_time_over(double min_s, int min_runs, int threads, F&& body) {
  Timed best;
  const auto start = clock::now();
  for (int runs = 0; runs < min_runs || seconds_since(start) < min_s; ++runs) {
    const double cpu0 = team_cpu_seconds(threads);
    const auto t0 = clock::now();
    bool together = true;
    if constexpr (std::is_same_v<decltype(body()), bool>)
      together = body();
    else
      body();
    const double wall = seconds_since(t0), cpu = team_cpu_seconds(threads) - cpu0;
    if (wall < best.seconds) best = {wall, together && cpu >= kCleanCpuShare * threads * wall};
  }
  return best;
}

double now_seconds() { return std::chrono::duration<double>(clock::now().time_since_epoch()).count(); }

// The fp32 FMA kernel, calibrated on one thread so that one pass takes about the target time.
struct FmaPeak {
  FmaKernel kernel = best_fma_kernel();
  std::int64_t iterations = 1 << 20;
  int threads = omp_get_max_threads();

  FmaPeak() {
    // The best of several probes: one that a busy host interrupts would size the passes so
    // small that waking the threads dominates them (130 GFLOP/s of 535, settled).
    const double probe = best_time_over(0.02, 3, 1, [&] { g_sink = run_fma_kernel(kernel, iterations, 1.0f); }).seconds;
    const double target = 0.002;  // a pass well inside one scheduler slice (see best_time_over)
    iterations = std::max<std::int64_t>(1024, static_cast<std::int64_t>(static_cast<double>(iterations) * target / probe));
  }
  double all_threads_once() const {
    const auto t0 = clock::now();
    float total = 0;
#pragma omp parallel reduction(+ : total)
    total += run_fma_kernel(kernel, iterations, static_cast<float>(omp_get_thread_num()));
    g_sink = total;
    return seconds_since(t0);
  }
  // One trial: warm-up passes (wide-vector clock licences settle), then the best of short
  // passes over a tenth of a second.
  Trial trial(const CharacterizeOptions& o) const {
    best_time_over(0.02, 1, threads, [&] { all_threads_once(); });
    const auto t = best_time_over(o.quick ? 0.05 : 0.1, 5, threads, [&] { all_threads_once(); });
    return {fma_kernel_flops(kernel, iterations) * threads / t.seconds, t.clean};
  }
  // Every core should add its share; if not, something else is running on them.
  void warn_if_shared(double flops, std::ostream& log) const {
    const double one = best_time_over(0.05, 5, 1, [&] { g_sink = run_fma_kernel(kernel, iterations, 1.0f); }).seconds;
    const double single_flops = fma_kernel_flops(kernel, iterations) / one;
    if (flops < kBusyMachineFraction * threads * single_flops)
      fmt::print(log, "  WARNING: {} threads reach {:.0f}% of {} x one thread's rate: other work is using the cores; "
                 "the rounds below keep each ceiling's best trial\n",
                 threads, 100.0 * flops / (threads * single_flops), threads);
  }
};

// One dtype's matmuls at a few square sizes, all compute-bound: one size alone under-reads
// the peak (a smaller one may block better for the caches), as ERT takes the maximum.
struct MatrixPeak {
  std::string dtype;
  std::vector<std::unique_ptr<OnednnMatmul>> sizes;
  std::vector<std::int64_t> n;
  std::string unit;

  explicit MatrixPeak(Dtype type) : dtype(dtype_name(type)) {
    for (std::int64_t s : {256, 512, 1024, 2048}) {
      try {
        auto mm = std::make_unique<OnednnMatmul>(type, s, s, s);
        const auto count = static_cast<std::size_t>(s * s);
        if (type == Dtype::int8) {
          fill_uniform_int8({static_cast<std::int8_t*>(mm->a()), count}, 1, -64, 64);
          fill_uniform_int8({static_cast<std::int8_t*>(mm->b()), count}, 2, -64, 64);
        } else {
          fill_uniform_bf16({static_cast<std::uint16_t*>(mm->a()), count}, 1, -1, 1);
          fill_uniform_bf16({static_cast<std::uint16_t*>(mm->b()), count}, 2, -1, 1);
        }
        mm->pack_weights();
        unit = mm->implementation();
        sizes.push_back(std::move(mm));
        n.push_back(s);
      } catch (const PointSkipped&) {
        break;
      }
    }
  }
  bool available() const { return !sizes.empty(); }
  // One trial: the best rate over the sizes, each a warm-up then the best of a few runs.
  Trial trial(const CharacterizeOptions& o) const {
    Trial best;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      sizes[i]->execute();
      const auto t = best_time_over(o.quick ? 0.02 : 0.05, 3, omp_get_max_threads(), [&] { sizes[i]->execute(); });
      const double rate = 2.0 * static_cast<double>(n[i] * n[i] * n[i]) / t.seconds;
      if (rate > best.rate) best = {rate, t.clean};
    }
    return best;
  }
};

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
Trial read_bandwidth(std::size_t per_thread_bytes, const CharacterizeOptions& o) {
  const int threads = omp_get_max_threads();
  const std::size_t per_thread = std::max<std::size_t>(256, per_thread_bytes / sizeof(float) / 256 * 256);
  std::vector<std::unique_ptr<float, FreeDeleter>> blocks(threads);
#pragma omp parallel
  {  // each thread allocates and first-touches its own block (NUMA-local)
    const int t = omp_get_thread_num();
    blocks[t].reset(static_cast<float*>(std::aligned_alloc(64, per_thread * sizeof(float))));
    for (std::size_t i = 0; i < per_thread; ++i) blocks[t].get()[i] = 1.0f + static_cast<float>(i & 7);
  }
  // A block larger than a chunk is read a chunk a timed pass, the chunks in turn: the whole
  // block still cycles through the caches (so a DRAM-sized block streams from DRAM), and a
  // pass stays short enough to fit in one scheduler slice (best_time_over).
  constexpr std::size_t kChunk = (2u << 20) / sizeof(float);  // 2 MiB a thread
  const std::size_t chunk = per_thread > 2 * kChunk ? kChunk : per_thread;
  const std::size_t chunks = per_thread / chunk;
  // A block within a chunk is read several times a pass: ~8 MiB a thread (4 quick).
  const double min_bytes = o.quick ? 4.0 * (1 << 20) : 8.0 * (1 << 20);
  const int passes =
      chunks > 1 ? 1 : static_cast<int>(std::max(1.0, min_bytes / static_cast<double>(per_thread * sizeof(float))));
  std::vector<ThreadSpan> spans(static_cast<std::size_t>(threads));
  Timed t;
  std::size_t next = 0;
  for (bool prefetch : {false, true}) {
    auto trial = [&] {
      const std::size_t offset = (next++ % chunks) * chunk;
      float total = 0;
#pragma omp parallel reduction(+ : total)
      {
        auto& span = spans[static_cast<std::size_t>(omp_get_thread_num())];
        span.start = now_seconds();
        total += read_sum(blocks[omp_get_thread_num()].get() + offset, chunk, passes, prefetch);
        span.end = now_seconds();
      }
      g_sink = total;
      return threads_overlapped(spans);
    };
    for (std::size_t c = 0; c < chunks; ++c) trial();  // warm-up: brings the block into the level under test
    // A block read in chunks (DRAM) gets more passes: under load, few of its passes have both
    // threads reading together (2-80 of 128 seen beside other builds).
    const double min_s = chunks > 1 ? (o.quick ? 0.05 : 0.1) : (o.quick ? 0.01 : 0.025);
    const auto timed = best_time_over(min_s, static_cast<int>(2 * chunks), threads, trial);
    if (timed.seconds < t.seconds) t = timed;
  }
  return {static_cast<double>(chunk * sizeof(float)) * passes * threads / t.seconds, t.clean};
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

void add_trial(CeilingTrials& trials, const Trial& trial, double at_s) {
  trials.values.push_back(trial.rate);
  if (!trial.clean) return;
  trials.clean_values.push_back(trial.rate);
  trials.clean_at_s.push_back(at_s);
}

bool wanted(const CharacterizeOptions& o, const std::string& name) {
  return o.only.empty() || std::find(o.only.begin(), o.only.end(), name) != o.only.end();
}
}  // namespace

DeviceProfile characterize_cpu(const CpuInfo& info, const CharacterizeOptions& o, std::ostream& log) {
  auto p = new_profile("cpu", fingerprint(info), to_json(info), omp_get_max_threads());
  fmt::print(log, "characterizing {} ({} threads){}\n", info.model_name, p.threads, o.quick ? ", quick" : "");
  TrialPlan plan = default_trial_plan(o.quick);
  if (o.max_rounds > 0) plan.max_rounds = o.max_rounds;
  std::vector<SystemReading> readings{read_system("before")};

  // The ceilings, each a trial function; a round takes one trial of every unsettled one.
  std::vector<CeilingTrials> trials;
  std::vector<std::function<Trial()>> measure;
  std::vector<ComputeCeiling> compute;
  const FmaPeak fma;
  if (wanted(o, "fp32_vector_fma")) {
    compute.push_back({"fp32_vector_fma", "fp32", fma.kernel.unit, 0});
    trials.push_back({"fp32_vector_fma", {}, {}, false, ""});
    measure.emplace_back([&] { return fma.trial(o); });
  }
  std::vector<std::unique_ptr<MatrixPeak>> matrices;
  for (Dtype type : {Dtype::bf16, Dtype::int8}) {
    const std::string name(dtype_name(type));
    const auto ceiling = fmt::format("{}_matrix", name);
    if (!wanted(o, ceiling)) continue;
    auto m = std::make_unique<MatrixPeak>(type);
    if (!m->available()) {
      fmt::print(log, "  {} matrix peak: none (oneDNN has no implementation on this CPU)\n", name);
      continue;
    }
    compute.push_back({ceiling, name, m->unit, 0});
    trials.push_back({ceiling, {}, {}, false, ""});
    measure.emplace_back([&o, mm = m.get()] { return mm->trial(o); });
    matrices.push_back(std::move(m));
  }
  // The memory levels share one sweep a round, over the working sets inside the unsettled ones.
  const auto all_levels = memory_levels(info, p.threads);
  std::vector<double> working_sets;  // per thread
  for (double ws = 8.0 * (1 << 10); ws <= std::max(all_levels.back().per_thread_low * 2, 8.0 * (1 << 10));
       ws *= o.quick ? 4 : 2)
    working_sets.push_back(ws);
  std::vector<Level> levels;
  for (const auto& l : all_levels) {
    if (!wanted(o, l.name)) continue;
    if (std::none_of(working_sets.begin(), working_sets.end(),
                     [&](double ws) { return ws >= l.per_thread_low && ws <= l.per_thread_high; }))
      fmt::print(log, "  {} read bandwidth: no sweep point inside the level\n", l.name);
    else
      levels.push_back(l);
  }
  const std::size_t first_level = trials.size();
  // A level reads at least as fast as the next one out: a disturbed L1 whose two trials
  // agreed at 2.8 GB/s (L2: 470) is not settled.
  for (std::size_t i = 0; i < levels.size(); ++i) {
    trials.push_back({levels[i].name, {}, {}, false, i + 1 < levels.size() ? levels[i + 1].name : ""});
    if (levels[i].name == "DRAM") trials.back().min_span_s = dram_min_span_s(o.quick);
  }
  const auto t0 = clock::now();
  std::map<double, double> sweep;  // per-thread working set -> best bandwidth over the rounds
  auto sweep_round = [&] {
    std::vector<Trial> best(levels.size());
    for (const double ws : working_sets) {
      bool inside_unsettled = false;
      for (std::size_t i = 0; i < levels.size(); ++i)
        inside_unsettled = inside_unsettled || (!trials[first_level + i].settled && ws >= levels[i].per_thread_low &&
                                                ws <= levels[i].per_thread_high);
      if (!inside_unsettled) continue;
      const auto bw = read_bandwidth(static_cast<std::size_t>(ws), o);
      sweep[ws] = std::max(sweep[ws], bw.rate);
      for (std::size_t i = 0; i < levels.size(); ++i)
        if (ws >= levels[i].per_thread_low && ws <= levels[i].per_thread_high && bw.rate > best[i].rate) best[i] = bw;
    }
    for (std::size_t i = 0; i < levels.size(); ++i)
      if (!trials[first_level + i].settled && best[i].rate > 0) add_trial(trials[first_level + i], best[i], seconds_since(t0));
  };

  int rounds = 0;
  do {
    // Only DRAM left, its trials not yet spread over its span: wait between them rather than
    // take them moments apart, within one spell of other tenants' traffic.
    if (rounds > 0 && only_spread_left(trials))
      std::this_thread::sleep_for(std::chrono::duration<double>(dram_min_span_s(o.quick) / 4));
    ++rounds;
    for (std::size_t i = 0; i < measure.size(); ++i)
      if (!trials[i].settled) add_trial(trials[i], measure[i](), seconds_since(t0));
    if (!levels.empty()) sweep_round();
    if (rounds == 1 && !compute.empty() && compute.front().name == "fp32_vector_fma")
      fma.warn_if_shared(trials.front().values.front(), log);
    readings.push_back(read_system(fmt::format("characterize round {}", rounds)));
    std::string line;
    for (const auto& t : trials)
      if (!t.values.empty()) line += fmt::format(" {} {:.3g}", t.name, t.values.back() / 1e9);
    fmt::print(log, "  round {} (G/s):{}\n", rounds, line);
  } while (another_round(trials, rounds, seconds_since(t0), plan));
  const double elapsed = seconds_since(t0);

  for (std::size_t i = 0; i < compute.size(); ++i) {
    compute[i].flops_per_s = best_value(trials[i].values);
    fmt::print(log, "  {} ({}): {:.1f} GFLOP/s, best two within {:.1f}%{}\n", compute[i].name, compute[i].unit,
               compute[i].flops_per_s / 1e9, 100 * std::max(0.0, best_two_spread(trials[i].values)),
               trials[i].settled ? "" : " (unsettled: the bound ended the rounds)");
    p.measured.compute.push_back(compute[i]);
  }
  if (o.only.empty()) p.measured.dispatch_latency_s = measure_dispatch_latency(log);
  for (const auto& [ws, bw] : sweep) p.bandwidth_sweep.push_back({ws * p.threads, bw});
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const auto& t = trials[first_level + i];
    p.measured.bandwidth.push_back({levels[i].name, best_value(t.values), levels[i].capacity});
    fmt::print(log, "  {} read bandwidth: {:.1f} GB/s, best two within {:.1f}%{}\n", levels[i].name,
               best_value(t.values) / 1e9, 100 * std::max(0.0, best_two_spread(t.values)),
               t.settled ? "" : " (unsettled: the bound ended the rounds)");
  }
  p.trials = trials_to_json(trials, plan, rounds, elapsed);
  readings.push_back(read_system("after"));
  p.conditions = conditions_to_json(readings);
  const auto verdict = assess(readings);
  for (const auto& why : verdict.reasons) fmt::print(log, "  WARNING: busy host: {}\n", why);
  return p;
}

}  // namespace rooftop::cpu
