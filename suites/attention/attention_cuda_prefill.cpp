#include <fmt/format.h>

#include <cstdio>

#include "devices/cuda/gpu_runtime.hpp"
#include "suites/attention/attention_cuda_prefill_kernels.cuh"

namespace rooftop::attention {
namespace {

// wgmma's first, the TMA producer's before the rest: on Hopper the first that runs a head
// dim is its default.
const std::vector<PrefillKernel>& prefill_kernels() {
  static const std::vector<PrefillKernel> all = [] {
    std::vector<PrefillKernel> v = hopper_ws_prefill_kernels();
    v.insert(v.end(), hopper_prefill_kernels().begin(), hopper_prefill_kernels().end());
    v.insert(v.end(), mma_prefill_kernels().begin(), mma_prefill_kernels().end());
    return v;
  }();
  return all;
}

const PrefillKernel* find(const PrefillConfig& c) {
  for (const auto& k : prefill_kernels())
    if (k.config == c) return &k;
  return nullptr;
}

int dtype_index(Dtype d) { return d == Dtype::bf16 ? 0 : 1; }
int dim_index(std::int64_t d) { return d == 64 ? 0 : 1; }

}  // namespace

std::string config_name(const PrefillConfig& c) {
  return fmt::format("{}m{}n{}w{}s{}{}{}{}", c.wgmma ? "wg" : "", c.bm, c.bn, c.warps, c.stages, c.overlap ? "o" : "",
                     c.producer ? "t" : "", c.pingpong ? "p" : "");
}

PrefillConfig parse_config_name(const std::string& name) {
  PrefillConfig c{};
  c.wgmma = name.starts_with("wg");
  int end = 0;
  std::sscanf(name.c_str() + (c.wgmma ? 2 : 0), "m%dn%dw%ds%d%n", &c.bm, &c.bn, &c.warps, &c.stages, &end);
  // The suffix letters after the stage count, in config_name's order.
  const std::string flags = end > 0 ? name.substr((c.wgmma ? 2 : 0) + end) : "";
  c.overlap = flags.find('o') != std::string::npos;
  c.producer = flags.find('t') != std::string::npos;
  c.pingpong = flags.find('p') != std::string::npos;
  return c;
}

const std::vector<PrefillConfig>& prefill_configs() {
  static const std::vector<PrefillConfig> configs = [] {
    std::vector<PrefillConfig> v;
    for (const auto& k : prefill_kernels()) v.push_back(k.config);
    return v;
  }();
  return configs;
}

std::string prefill_unsupported(const PrefillConfig& c, std::int64_t d, Dtype dtype) {
  if (c.warps == 0)
    return fmt::format("tile m{}n{} names the CPU path's tiles; the CUDA prefill's are [wg]m<M>n<N>w<warps>s<stages>, "
                       "e.g. m128n64w4s2", c.bm, c.bn);
  const PrefillKernel* k = find(c);
  if (!k) {
    std::string names;
    for (const auto& p : prefill_configs()) names += (names.empty() ? "" : ", ") + config_name(p);
    return fmt::format("prefill tile {} is not compiled; compiled: {}", config_name(c), names);
  }
  if (dtype != Dtype::bf16 && dtype != Dtype::fp16) return "the tensor-core prefill kernel takes bf16 or fp16";
  if (!k->kernels[dtype_index(dtype)][dim_index(d)])
    return fmt::format("tile {} is compiled for head dim {} only: its consumers' registers do not hold head dim {}'s "
                       "accumulators", config_name(c), d == 64 ? 128 : 64, d);
  int device = 0, optin = 0, major = 0, minor = 0;
  ROOFTOP_GPU_CHECK(cudaGetDevice(&device));
  ROOFTOP_GPU_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  ROOFTOP_GPU_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (c.wgmma && (major != 9 || minor != 0))
    return fmt::format("tile {} is built with wgmma for sm_90a (Hopper) only; this GPU is sm_{}{}", config_name(c),
                       major, minor);
  ROOFTOP_GPU_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (k->shared[dim_index(d)] > optin)
    return fmt::format("tile {} at head dim {} needs {} KiB of shared memory, this GPU gives a block {} KiB",
                       config_name(c), d, k->shared[dim_index(d)] / 1024, optin / 1024);
  cudaFuncAttributes attr{};
  ROOFTOP_GPU_CHECK(cudaFuncGetAttributes(&attr, k->kernels[dtype_index(dtype)][dim_index(d)]));
  if (attr.maxThreadsPerBlock < c.warps * 32)
    return fmt::format("tile {} at head dim {} uses {} registers a thread, too many for {} threads", config_name(c), d,
                       attr.numRegs, c.warps * 32);
  return {};
}

std::string prefill_resources(const PrefillConfig& c, std::int64_t d, Dtype dtype) {
  const PrefillKernel* k = find(c);
  if (!k || !k->kernels[dtype_index(dtype)][dim_index(d)]) return {};
  cudaFuncAttributes attr{};
  ROOFTOP_GPU_CHECK(cudaFuncGetAttributes(&attr, k->kernels[dtype_index(dtype)][dim_index(d)]));
  return fmt::format("{} registers, {} KiB shared, {} B spilled", attr.numRegs, k->shared[dim_index(d)] / 1024,
                     attr.localSizeBytes);
}

PrefillConfig default_prefill_config(std::int64_t d, Dtype dtype) {
  for (const auto& c : prefill_configs())
    if (prefill_unsupported(c, d, dtype).empty()) return c;
  return prefill_configs().back();  // none runs: the caller's check names why
}

void launch_prefill(const PrefillArgs& a, const PrefillConfig& c) {
  if (const PrefillKernel* k = find(c)) k->launch[dtype_index(a.dtype)][dim_index(a.d)](a);
}

}  // namespace rooftop::attention
