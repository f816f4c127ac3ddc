#include "devices/cuda/characterize.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <thread>

#include "devices/cuda/device_reading.hpp"
#include "devices/cuda/vendor_matmul.hpp"
#include "devices/cuda/cuda_timer.hpp"
#include "devices/cuda/gpu_kernels.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "harness/ceiling_trials.hpp"
#include "harness/errors.hpp"
#include "harness/system_state.hpp"

namespace rooftop::gpu {
namespace {

constexpr double kGiB = 0x1p30, kMiB = 0x1p20;

bool wanted(const CharacterizeOptions& o, const std::string& name) {
  return o.only.empty() || std::find(o.only.begin(), o.only.end(), name) != o.only.end();
}

struct Context {
  const GpuInfo& info;
  const CharacterizeOptions& options;
  std::ostream& log;
  std::unique_ptr<DeviceTimer> timer;
  bool first_round = true;  // the detail lines are printed once; the rounds print a line each
  // Runs a trial keeps the best of; the rounds (harness/ceiling_trials.hpp) repeat the trials.
  int trials() const { return options.quick ? 3 : 5; }
  // Best (shortest) device time of `trials` runs after one warm-up.
  double best_seconds(const std::function<void()>& work) {
    timer->time(work, false);
    double best = 1e300;
    for (int t = 0; t < trials(); ++t) best = std::min(best, timer->time(work, false));
    return best;
  }
  int word_blocks() const { return info.sm_count * 4; }  // 4 x 512 threads fill an SM
};

struct MemoryKernels {
  double copy = 0, read = 0, write = 0;
};

MemoryKernels measure_memory_kernels(Context& c) {
  const std::size_t bytes = static_cast<std::size_t>(c.options.quick ? 256 * kMiB : 1 * kGiB);
  DeviceBuffer src(bytes), dst(bytes), sink(sizeof(int));
  fill_uniform(Dtype::int8, src.get(), bytes, 1, -100, 100);
  fill_uniform(Dtype::int8, dst.get(), bytes, 2, -100, 100);
  // Grids from a few waves per SM to one pass over the data (4 words a thread): the best
  // launch shape differs by kernel and GPU, and a ceiling is the best one measured.
  const int one_pass = static_cast<int>(std::min<std::size_t>(bytes / (16 * 512 * 4), 1 << 20));
  const int grids[] = {c.info.sm_count * 2, c.word_blocks(), c.info.sm_count * 8, one_pass};
  const double b = static_cast<double>(bytes);
  MemoryKernels m;
  for (const int blocks : grids) {
    m.copy = std::max(m.copy, 2 * b / c.best_seconds([&] { copy_words(dst.get(), src.get(), bytes, blocks); }));
    m.read = std::max(m.read, b / c.best_seconds([&] { read_words(src.get(), bytes, 1, blocks, sink.as<int>()); }));
    m.write = std::max(m.write, b / c.best_seconds([&] { write_words(dst.get(), bytes, blocks); }));
  }
  // The runtime's own device-to-device copy, beside ours.
  const double memcpy_rate = 2 * b / c.best_seconds([&] {
    ROOFTOP_GPU_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream()));
  });
  if (c.first_round) fmt::print(c.log, "  memory over {:.0f} MiB: copy {:.1f} GB/s (read + write counted; {}Memcpy {:.1f}), read {:.1f} GB/s, "
             "write {:.1f} GB/s\n", b / kMiB, std::max(m.copy, memcpy_rate) / 1e9, ROOFTOP_GPU_BACKEND, memcpy_rate / 1e9, m.read / 1e9, m.write / 1e9);
  m.copy = std::max(m.copy, memcpy_rate);
  return m;
}

// Read bandwidth by working set: repeated passes over a buffer show the level it fits in.
std::vector<SweepPoint> read_sweep(Context& c) {
  const double largest = c.options.quick ? 512 * kMiB : 2 * kGiB;
  DeviceBuffer data(static_cast<std::size_t>(largest)), sink(sizeof(int));
  fill_uniform(Dtype::int8, data.get(), data.bytes(), 3, -100, 100);
  std::vector<SweepPoint> sweep;
  for (double ws = 1 * kMiB; ws <= largest; ws *= c.options.quick ? 4 : 2) {
    const int passes = static_cast<int>(std::max(1.0, 4 * kGiB / ws));
    const auto bytes = static_cast<std::size_t>(ws);
    const double t = c.best_seconds([&] { read_words(data.get(), bytes, passes, c.word_blocks(), sink.as<int>()); });
    sweep.push_back({ws, ws * passes / t});
  }
  return sweep;
}

struct FmaPeak {
  DeviceBuffer sink{sizeof(float)};
  int blocks = 0, threads = 256, iterations = 1 << 14;
  explicit FmaPeak(Context& c) : blocks(c.info.sm_count * 8) {
    double flops = 0;
    const double t = c.best_seconds([&] { flops = fma_chains(sink.as<float>(), blocks, threads, iterations); });
    // Long enough that launch and tail effects vanish: about 50 ms a launch.
    iterations = static_cast<int>(std::min(1e9, iterations * std::max(1.0, 0.05 / t)));
  }
  double trial(Context& c) {
    double flops = 0;
    const double t = c.best_seconds([&] { flops = fma_chains(sink.as<float>(), blocks, threads, iterations); });
    return flops / t;
  }
};
#if defined(ROOFTOP_HIP)
constexpr const char* kFmaUnit = "vector ALU FMA (own kernel)";
#else
constexpr const char* kFmaUnit = "CUDA core FMA (own kernel)";
#endif

// One trial of a dtype's matrix peak: the best rate over the sizes. Empty when the dtype has
// no kernel here (said once, in the first round).
std::optional<double> matrix_trial(Context& c, Dtype dtype, std::string& algorithm) {
  const std::vector<std::int64_t> sizes = c.options.quick ? std::vector<std::int64_t>{4096} : std::vector<std::int64_t>{4096, 8192, 16384};
  double best = 0;
  // A pause first: the last peak's heat and power draw would lower this one's clock.
  std::this_thread::sleep_for(std::chrono::milliseconds(c.options.quick ? 200 : 1000));
  for (const auto n : sizes) {
    try {
      VendorMatmul mm(dtype, n, n, n);
      // Random inputs: zeros would run faster than real data.
      fill_uniform(dtype, mm.a(), static_cast<std::size_t>(n * n), 10 + n, -1, 1);
      fill_uniform(dtype, mm.b(), static_cast<std::size_t>(n * n), 20 + n, -1, 1);
      const double t = c.best_seconds([&] { mm.execute(); });
      const double rate = 2.0 * static_cast<double>(n) * n * n / t;
      if (rate > best) {
        best = rate;
        algorithm = fmt::format("{}^3: {}", n, mm.algorithm());
      }
    } catch (const PointSkipped& e) {
      fmt::print(c.log, "  {} matrix peak: skipped ({})\n", dtype_name(dtype), e.what());
      return std::nullopt;
    } catch (const GpuError& e) {
      // No ceiling rather than a wrong one; the other dtypes are still measured.
      fmt::print(c.log, "  {} matrix peak: failed at {}^3, no ceiling recorded ({})\n", dtype_name(dtype), n, e.what());
      return std::nullopt;
    }
  }
  return best;
}

std::string matrix_unit(const std::string& algorithm) {
#if defined(ROOFTOP_HIP)
  return "matrix core (" + algorithm + ")";
#else
  (void)algorithm;
  return "tensor core (cuBLASLt)";
#endif
}

std::vector<LinkCeiling> measure_host_links(Context& c) {
  const std::size_t bytes = static_cast<std::size_t>(c.options.quick ? 64 * kMiB : 256 * kMiB);
  PinnedBuffer host(bytes);
  DeviceBuffer device(bytes);
  const double h2d = static_cast<double>(bytes) / c.best_seconds([&] {
    ROOFTOP_GPU_CHECK(cudaMemcpyAsync(device.get(), host.get(), bytes, cudaMemcpyHostToDevice, stream()));
  });
  const double d2h = static_cast<double>(bytes) / c.best_seconds([&] {
    ROOFTOP_GPU_CHECK(cudaMemcpyAsync(host.get(), device.get(), bytes, cudaMemcpyDeviceToHost, stream()));
  });
  fmt::print(c.log, "  host to device {:.1f} GB/s, device to host {:.1f} GB/s (pinned)\n", h2d / 1e9, d2h / 1e9);
  return {{"host_to_device", h2d}, {"device_to_host", d2h}};
}
// another_round over the ceilings still measured: a dtype without a kernel here leaves the
// rounds instead of holding them open as unsettled.
bool another_round_of_available(std::vector<CeilingTrials>& trials, const std::vector<bool>& available, int rounds,
                                double elapsed_s, const TrialPlan& plan) {
  std::vector<CeilingTrials> active;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < trials.size(); ++i)
    if (i >= available.size() || available[i]) {
      active.push_back(trials[i]);
      index.push_back(i);
    }
  const bool again = another_round(active, rounds, elapsed_s, plan);
  for (std::size_t k = 0; k < active.size(); ++k) trials[index[k]].settled = active[k].settled;
  return again;
}
}  // namespace

DeviceProfile characterize_gpu(const GpuInfo& info, const CharacterizeOptions& o, std::ostream& log) {
  auto p = new_profile(ROOFTOP_GPU_BACKEND, fingerprint(info), to_json(info), 1);
  fmt::print(log, "characterizing {} ({} SMs, {:.0f} MiB L2){}\n", info.name, info.sm_count, info.l2_bytes / kMiB,
             o.quick ? ", quick" : "");
  Context c{info, o, log, make_cuda_timer(info.l2_bytes, info.sm_count)};
  TrialPlan plan = default_trial_plan(o.quick);
  if (o.max_rounds > 0) plan.max_rounds = o.max_rounds;
  // The host and the card before, between the rounds and after (as the CPU's characterize).
  const DeviceMonitor monitor(info.pci_bus_id);
  std::vector<SystemReading> host{read_system("before")};
  std::vector<DeviceReading> card;
  if (auto r = read_device_state(monitor, "before")) card.push_back(std::move(*r));
  // A trial is clean unless the card held its clocks down (thermal, hardware, power brake)
  // by the end of it: such a trial is kept as a value but settles nothing. Without NVML every
  // trial counts as clean.
  const auto clean_now = [&] {
    const auto r = read_device_state(monitor, "trial");
    return !r || !r->throttle_reasons || !slowing_reasons(*r->throttle_reasons);
  };
  const auto add = [&](CeilingTrials& t, double rate) {
    t.values.push_back(rate);
    if (clean_now()) t.clean_values.push_back(rate);
  };

  // The ceilings, each a trial function; a round takes one trial of every unsettled one.
  std::vector<CeilingTrials> trials;
  std::vector<std::function<std::optional<double>()>> measure;
  std::vector<ComputeCeiling> compute;
  std::optional<FmaPeak> fma;
  if (wanted(o, "fp32_vector_fma")) {
    fma.emplace(c);
    compute.push_back({"fp32_vector_fma", "fp32", kFmaUnit, 0});
    trials.push_back({"fp32_vector_fma", {}, {}, false, ""});
    measure.emplace_back([&]() -> std::optional<double> { return fma->trial(c); });
  }
  std::vector<std::string> algorithms(8);
  for (Dtype d : {Dtype::tf32, Dtype::bf16, Dtype::fp16, Dtype::fp8, Dtype::int8}) {
    const std::string name = std::string(dtype_name(d)) + "_matrix";
    if (!wanted(o, name)) continue;
    const std::size_t slot = compute.size();
    compute.push_back({name, std::string(dtype_name(d)), "", 0});
    trials.push_back({name, {}, {}, false, ""});
    measure.emplace_back([&c, &algorithms, d, slot]() { return matrix_trial(c, d, algorithms[slot]); });
  }
  // The memory levels share one measurement a round: the kernels over a large buffer and the
  // read sweep; L2 never settles below the memory's bandwidth.
  const std::string memory = info.memory_bus_bits >= 1024 ? "HBM" : "DRAM";
  const bool want_l2 = wanted(o, "L2"), want_memory = wanted(o, memory);
  const std::size_t first_level = trials.size();
  if (want_l2) trials.push_back({"L2", {}, {}, false, want_memory ? memory : ""});
  if (want_memory) trials.push_back({memory, {}, {}, false, ""});
  MemoryKernels kernels;
  std::map<double, double> sweep;  // working set -> best bandwidth over the rounds
  const auto memory_round = [&] {
    const auto k = measure_memory_kernels(c);
    kernels = {std::max(kernels.copy, k.copy), std::max(kernels.read, k.read), std::max(kernels.write, k.write)};
    double l2 = 0, dram = std::max({k.copy, k.read, k.write});
    for (const auto& point : read_sweep(c)) {
      sweep[point.working_set_bytes] = std::max(sweep[point.working_set_bytes], point.bytes_per_s);
      if (point.working_set_bytes <= info.l2_bytes / 2) l2 = std::max(l2, point.bytes_per_s);
      if (point.working_set_bytes >= 8 * info.l2_bytes) dram = std::max(dram, point.bytes_per_s);
    }
    const bool clean = clean_now();
    for (std::size_t i = first_level; i < trials.size(); ++i) {
      auto& t = trials[i];
      if (t.settled) continue;
      const double rate = t.name == "L2" ? l2 : dram;
      if (!(rate > 0)) continue;
      t.values.push_back(rate);
      if (clean) t.clean_values.push_back(rate);
    }
  };

  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  std::vector<bool> available(measure.size(), true);
  int rounds = 0;
  do {
    ++rounds;
    for (std::size_t i = 0; i < measure.size(); ++i) {
      if (trials[i].settled || !available[i]) continue;
      const auto rate = measure[i]();
      if (!rate) {  // no kernel for this dtype (first trial): no ceiling, and no more trials of it
        if (trials[i].values.empty()) available[i] = false;
        continue;
      }
      add(trials[i], *rate);
    }
    if (first_level < trials.size()) memory_round();
    c.first_round = false;
    host.push_back(read_system(fmt::format("characterize round {}", rounds)));
    if (auto r = read_device_state(monitor, fmt::format("characterize round {}", rounds))) card.push_back(std::move(*r));
    std::string line;
    for (const auto& t : trials)
      if (!t.values.empty()) line += fmt::format(" {} {:.4g}", t.name, t.values.back() / 1e12);
    fmt::print(log, "  round {} (T/s):{}\n", rounds, line);
  } while (another_round_of_available(trials, available, rounds, elapsed(), plan));

  const auto settled_text = [](const CeilingTrials& t) {
    return fmt::format("best two within {:.1f}%{}", 100 * std::max(0.0, best_two_spread(t.values)),
                       t.settled ? "" : " (unsettled: the bound ended the rounds)");
  };
  std::vector<CeilingTrials> kept;
  for (std::size_t i = 0; i < measure.size(); ++i) {
    if (!available[i]) continue;
    compute[i].flops_per_s = best_value(trials[i].values);
    if (compute[i].unit.empty()) compute[i].unit = matrix_unit(algorithms[i]);
    fmt::print(log, "  {} ({}): {:.1f} TFLOP/s, {}{}\n", compute[i].name, compute[i].unit, compute[i].flops_per_s / 1e12,
               settled_text(trials[i]), algorithms[i].empty() ? "" : ", " + algorithms[i]);
    p.measured.compute.push_back(compute[i]);
    kept.push_back(trials[i]);
  }
  if (first_level < trials.size()) {
    p.device["memory_kernels_bytes_per_s"] = {{"copy", kernels.copy}, {"read", kernels.read}, {"write", kernels.write}};
    for (const auto& [ws, bw] : sweep) p.bandwidth_sweep.push_back({ws, bw});
  }
  for (std::size_t i = first_level; i < trials.size(); ++i) {
    const auto& t = trials[i];
    p.measured.bandwidth.push_back({t.name, best_value(t.values), t.name == "L2" ? info.l2_bytes : 0});
    fmt::print(log, "  {} read bandwidth: {:.1f} GB/s, {}\n", t.name, best_value(t.values) / 1e9, settled_text(t));
    kept.push_back(t);
  }
  if (o.only.empty()) {
    p.measured.links = measure_host_links(c);
    DeviceBuffer nothing(16);
    p.measured.dispatch_latency_s = c.best_seconds([&] { write_words(nothing.get(), 16, 1); });
    fmt::print(log, "  shortest kernel: {:.2f} us\n", p.measured.dispatch_latency_s * 1e6);
  }
  p.trials = trials_to_json(kept, plan, rounds, elapsed());
  host.push_back(read_system("after"));
  if (auto r = read_device_state(monitor, "after")) card.push_back(std::move(*r));
  p.conditions = conditions_to_json(host);
  add_device_readings(p.conditions, card);
  if (p.conditions.value("busy", false))
    for (const auto& why : p.conditions["reasons"]) fmt::print(log, "  WARNING: busy: {}\n", why.get<std::string>());
  return p;
}

}  // namespace rooftop::gpu
