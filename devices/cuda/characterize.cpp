#include "devices/cuda/characterize.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "devices/cuda/vendor_matmul.hpp"
#include "devices/cuda/cuda_timer.hpp"
#include "devices/cuda/gpu_kernels.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "harness/errors.hpp"

namespace rooftop::gpu {
namespace {

constexpr double kGiB = 0x1p30, kMiB = 0x1p20;

struct Context {
  const GpuInfo& info;
  const CharacterizeOptions& options;
  std::ostream& log;
  std::unique_ptr<DeviceTimer> timer;
  int trials() const { return options.quick ? 3 : 10; }
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
  fmt::print(c.log, "  memory over {:.0f} MiB: copy {:.1f} GB/s (read + write counted; {}Memcpy {:.1f}), read {:.1f} GB/s, "
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

ComputeCeiling measure_fma_peak(Context& c) {
  DeviceBuffer sink(sizeof(float));
  const int blocks = c.info.sm_count * 8, threads = 256;
  int iterations = 1 << 14;
  double flops = 0;
  double t = c.best_seconds([&] { flops = fma_chains(sink.as<float>(), blocks, threads, iterations); });
  // Long enough that launch and tail effects vanish: about 50 ms a launch.
  iterations = static_cast<int>(std::min(1e9, iterations * std::max(1.0, 0.05 / t)));
  t = c.best_seconds([&] { flops = fma_chains(sink.as<float>(), blocks, threads, iterations); });
  fmt::print(c.log, "  fp32 FMA peak: {:.1f} TFLOP/s\n", flops / t / 1e12);
  #if defined(ROOFTOP_HIP)
  return {"fp32_vector_fma", "fp32", "vector ALU FMA (own kernel)", flops / t};
#else
  return {"fp32_vector_fma", "fp32", "CUDA core FMA (own kernel)", flops / t};
#endif
}

std::optional<ComputeCeiling> measure_matrix_peak(Context& c, Dtype dtype) {
  const std::vector<std::int64_t> sizes = c.options.quick ? std::vector<std::int64_t>{4096} : std::vector<std::int64_t>{4096, 8192, 16384};
  double best = 0;
  std::string algorithm;
  for (const auto n : sizes) {
    // A pause first: the last peak's heat and power draw would lower this one's clock.
    std::this_thread::sleep_for(std::chrono::milliseconds(c.options.quick ? 200 : 1000));
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
  fmt::print(c.log, "  {} matrix peak: {:.1f} TFLOP/s ({})\n", dtype_name(dtype), best / 1e12, algorithm);
  return ComputeCeiling{std::string(dtype_name(dtype)) + "_matrix", std::string(dtype_name(dtype)),
#if defined(ROOFTOP_HIP)
                        "matrix core (" + algorithm + ")", best};
#else
                        "tensor core (cuBLASLt)", best};
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
}  // namespace

DeviceProfile characterize_gpu(const GpuInfo& info, const CharacterizeOptions& o, std::ostream& log) {
  auto p = new_profile(ROOFTOP_GPU_BACKEND, fingerprint(info), to_json(info), 1);
  fmt::print(log, "characterizing {} ({} SMs, {:.0f} MiB L2){}\n", info.name, info.sm_count, info.l2_bytes / kMiB,
             o.quick ? ", quick" : "");
  Context c{info, o, log, make_cuda_timer(info.l2_bytes, info.sm_count)};

  p.measured.compute.push_back(measure_fma_peak(c));
  for (Dtype d : {Dtype::tf32, Dtype::bf16, Dtype::fp16, Dtype::fp8, Dtype::int8})
    if (auto peak = measure_matrix_peak(c, d)) p.measured.compute.push_back(*peak);

  const auto kernels = measure_memory_kernels(c);
  p.device["memory_kernels_bytes_per_s"] = {{"copy", kernels.copy}, {"read", kernels.read}, {"write", kernels.write}};
  p.bandwidth_sweep = read_sweep(c);
  double l2 = 0, dram = std::max({kernels.copy, kernels.read, kernels.write});
  for (const auto& s : p.bandwidth_sweep) {
    if (s.working_set_bytes <= info.l2_bytes / 2) l2 = std::max(l2, s.bytes_per_s);
    if (s.working_set_bytes >= 8 * info.l2_bytes) dram = std::max(dram, s.bytes_per_s);
  }
  const std::string memory = info.memory_bus_bits >= 1024 ? "HBM" : "DRAM";
  if (l2 > 0) p.measured.bandwidth.push_back({"L2", l2, info.l2_bytes});
  p.measured.bandwidth.push_back({memory, dram, 0});
  fmt::print(log, "  L2 read bandwidth: {:.1f} GB/s; {} bandwidth (best kernel): {:.1f} GB/s\n", l2 / 1e9, memory, dram / 1e9);

  p.measured.links = measure_host_links(c);
  DeviceBuffer nothing(16);
  p.measured.dispatch_latency_s = c.best_seconds([&] { write_words(nothing.get(), 16, 1); });
  fmt::print(log, "  shortest kernel: {:.2f} us\n", p.measured.dispatch_latency_s * 1e6);
  return p;
}

}  // namespace rooftop::gpu
