#include "suites/attention/attention_cuda.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include "devices/cuda/vendor_matmul.hpp"
#include "devices/cuda/gpu_kernels.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/vendors/gpu.hpp"
#include "harness/errors.hpp"
#include "harness/registry.hpp"
#include "suites/attention/attention_cuda_decode.cuh"
#include "suites/attention/attention_cuda_prefill.cuh"
#include "suites/attention/attention_cuda_softmax.cuh"
#include "suites/attention/attention_cudnn_graph.hpp"
#include "suites/attention/attention_data.hpp"

namespace rooftop::attention {
namespace {

gpu::DeviceBuffer upload(const void* host, std::size_t bytes) {
  gpu::DeviceBuffer d(bytes);
  ROOFTOP_GPU_CHECK(cudaMemcpy(d.get(), host, bytes, cudaMemcpyHostToDevice));
  return d;
}

gpu::OutputType output_type(Dtype d) {
  return d == Dtype::fp32 ? gpu::OutputType::f32 : d == Dtype::bf16 ? gpu::OutputType::bf16 : gpu::OutputType::f16;
}

// Runs the kernel on poisoned output and checks it on the host against the reference.
Correctness check_on_host(AttentionData& data, const gpu::DeviceBuffer& o, std::uint64_t seed,
                          const std::function<void()>& run) {
  gpu::poison(output_type(data.dtype()), o.get(), data.q_bytes() / input_size(data.dtype()));
  run();
  ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
  ROOFTOP_GPU_CHECK(cudaMemcpy(data.o(), o.get(), data.q_bytes(), cudaMemcpyDeviceToHost));
  return data.check(seed + 7);
}

#if ROOFTOP_GPU_HAS_MMA_SYNC  // the fused prefill kernels are mma.sync and wgmma code
class PrefillCuda final : public Instance {
 public:
  PrefillCuda(const AttentionShape& s, Dtype dtype, const PrefillConfig& config, std::uint64_t seed)
      : seed_(seed), config_(config), data_(s, dtype, seed) {
    q_ = upload(data_.q(), data_.q_bytes());
    k_ = upload(data_.k_pool(), data_.kv_bytes());
    v_ = upload(data_.v_pool(), data_.kv_bytes());
    o_ = gpu::DeviceBuffer(data_.q_bytes());
    args_ = {dtype, s.b, s.hq, s.hkv, s.sq, s.d, s.causal, q_.get(), k_.get(), v_.get(), o_.get()};
  }
  std::string implementation() const override {
    return fmt::format("rooftop fused prefill, {}{}{} ({}: {} query rows x {} keys, {} warps, {} stages; {})",
                       config_.wgmma ? "wgmma m64nNk16" : "mma.sync m16n8k16",
                       config_.producer ? ", TMA producer warpgroup" : "", config_.pingpong ? ", ping-pong" : "",
                       config_name(config_), config_.bm, config_.bn, config_.warps, config_.stages,
                       prefill_resources(config_, args_.d, args_.dtype));
  }
  std::string implementation_label() const override { return config_name(config_); }  // the tile: "wgm192n128w12s2"
  Correctness check() override { return check_on_host(data_, o_, seed_, [this] { run(); }); }
  void run() override { launch_prefill(args_, config_); }

 private:
  std::uint64_t seed_;
  PrefillConfig config_;
  AttentionData data_;
  gpu::DeviceBuffer q_, k_, v_, o_;
  PrefillArgs args_{};
};

#endif

// The unfused path, as a framework without a fused kernel runs it: scores = Q K^T / sqrt(D)
// materialised in fp32 by cuBLASLt (rocBLAS for HIP), a softmax kernel writing P in the
// input type, then O = P V by the same library. GQA batches each KV head with its group of
// query heads, whose rows are contiguous: one product of (G S) x S per (batch, KV head).
class UnfusedCuda final : public Instance {
 public:
  UnfusedCuda(const AttentionShape& s, Dtype dtype, std::uint64_t seed)
      : seed_(seed), shape_(s), data_(s, dtype, seed),
        scores_gemm_(dtype, {s.group() * s.sq, s.skv, s.d, true, true, s.b * s.hkv, s.group() * s.sq * s.d, s.skv * s.d,
                             s.group() * s.sq * s.skv}),
        output_gemm_(dtype, {s.group() * s.sq, s.d, s.skv, false, false, s.b * s.hkv, s.group() * s.sq * s.skv,
                             s.skv * s.d, s.group() * s.sq * s.d}) {
    q_ = upload(data_.q(), data_.q_bytes());
    k_ = upload(data_.k_pool(), data_.kv_bytes());
    v_ = upload(data_.v_pool(), data_.kv_bytes());
    o_ = gpu::DeviceBuffer(data_.q_bytes());
    const auto scores = static_cast<std::size_t>(s.b * s.hq * s.sq * s.skv);
    scores_ = gpu::DeviceBuffer(scores * sizeof(float));
    probabilities_ = gpu::DeviceBuffer(scores * input_size(dtype));
  }
  std::string implementation() const override {
    return fmt::format("{0} QK^T (fp32 scores) + softmax kernel + {0} PV: {1}", gpu::kVendorMatmulName,
                       scores_gemm_.algorithm());
  }
  std::string implementation_label() const override { return gpu::kVendorMatmulName; }
  Correctness check() override { return check_on_host(data_, o_, seed_, [this] { run(); }); }
  void run() override {
    const auto& s = shape_;
    scores_gemm_.execute_on(q_.get(), k_.get(), scores_.get(), 1.0f / std::sqrt(static_cast<float>(s.d)));
    launch_softmax_rows(data_.dtype(), scores_.as<float>(), probabilities_.get(), s.b * s.hq * s.sq, s.sq, s.skv, s.causal);
    output_gemm_.execute_on(probabilities_.get(), v_.get(), o_.get());
  }

 private:
  std::uint64_t seed_;
  AttentionShape shape_;
  AttentionData data_;
  gpu::VendorMatmul scores_gemm_, output_gemm_;
  gpu::DeviceBuffer q_, k_, v_, o_, scores_, probabilities_;
};

#if ROOFTOP_HAVE_CUDNN
// cuDNN's fused attention on the same tensors, checked against the same reference. The graph
// and its plan are built before the inputs, so a shape cuDNN cannot run skips at once.
class CudnnCuda final : public Instance {
 public:
  CudnnCuda(const AttentionShape& s, Dtype dtype, std::uint64_t seed) : seed_(seed), sdpa_(s, dtype), data_(s, dtype, seed) {
    q_ = upload(data_.q(), data_.q_bytes());
    k_ = upload(data_.k_pool(), data_.kv_bytes());
    v_ = upload(data_.v_pool(), data_.kv_bytes());
    o_ = gpu::DeviceBuffer(data_.q_bytes());
    sdpa_.bind(q_.get(), k_.get(), v_.get(), o_.get());
  }
  std::string implementation() const override { return sdpa_.description(); }
  std::string implementation_label() const override { return "cuDNN"; }
  Correctness check() override { return check_on_host(data_, o_, seed_, [this] { run(); }); }
  void run() override { sdpa_.run(); }

 private:
  std::uint64_t seed_;
  CudnnSdpa sdpa_;
  AttentionData data_;
  gpu::DeviceBuffer q_, k_, v_, o_;
};
#endif

#if ROOFTOP_GPU_HAS_MMA_SYNC
PrefillConfig prefill_config(const AttentionShape& s, Dtype dtype) {
  return s.tile.empty() ? default_prefill_config(s.d, dtype) : parse_config_name(s.tile);
}
#endif

class DecodeCuda final : public Instance {
 public:
  DecodeCuda(const AttentionShape& s, Dtype dtype, std::uint64_t seed) : seed_(seed), data_(check_shape(s), dtype, seed) {
    q_ = upload(data_.q(), data_.q_bytes());
    k_ = upload(data_.k_pool(), data_.kv_bytes());
    v_ = upload(data_.v_pool(), data_.kv_bytes());
    o_ = gpu::DeviceBuffer(data_.q_bytes());
    if (s.block) table_ = upload(data_.block_table().data(), data_.block_table().size() * sizeof(std::int32_t));
    // A tuned (or given) split count, else the one that fills whole waves. A tuned tile comes
    // from a file, unchecked: one outside the kernel's limits would overrun its shared block table.
    if (!s.tile.empty() && !splits_fit(split_count(s.tile), s.skv))
      throw PointSkipped(fmt::format("decode tile '{}' does not fit {} keys (s<splits>, each split {} to {} keys, at most {} "
                                     "splits); run `rooftop tune` again", s.tile, s.skv, kDecodeMinSplitKeys,
                                     kDecodeMaxSplitKeys, kDecodeMaxSplits));
    const std::int64_t block_rows = s.hkv * decode_passes(dtype, s.group());  // per sequence: the grid's x
    const int splits = s.tile.empty() ? decode_splits(s.b, block_rows, s.skv, decode_resident_blocks(dtype, s.d, s.group()))
                                      : static_cast<int>(split_count(s.tile));
    const auto workspace = static_cast<std::size_t>(decode_workspace_floats(s.b, s.hq, s.hkv, s.d, splits)) * sizeof(float);
    partial_ = gpu::DeviceBuffer(workspace);
    ROOFTOP_GPU_CHECK(cudaMemset(partial_.get(), 0, workspace));
    args_ = {dtype, s.b, s.hq, s.hkv, s.skv, s.d, s.block, q_.get(), k_.get(), v_.get(),
             s.block ? table_.as<std::int32_t>() : nullptr, o_.get(), partial_.as<float>(), splits};
  }

  std::string implementation() const override {
    const std::int64_t g = args_.hq / args_.hkv, passes = decode_passes(args_.dtype, g);
    return fmt::format("rooftop split-KV decode ({} splits x 4 warps, {} cache, group {}{})", args_.splits,
                       args_.block ? fmt::format("paged {}", args_.block) : "contiguous", g,
                       passes > 1 ? fmt::format(" in {} passes over the cache", passes) : std::string());
  }
  std::string implementation_label() const override { return fmt::format("split-KV x{}", args_.splits); }

  Correctness check() override { return check_on_host(data_, o_, seed_, [this] { run(); }); }

  void run() override { launch_decode(args_); }

 private:
  static const AttentionShape& check_shape(const AttentionShape& s) {
    const auto g = s.group();
    if (g < 1 || g > kMaxDecodeGroup)
      throw PointSkipped(fmt::format("no fast decode kernel for group {}: the split-KV kernel runs 1 to {} query heads "
                                     "per KV head, and the attention suite has no generic decode kernel",
                                     g, kMaxDecodeGroup));
    return s;
  }

  std::uint64_t seed_;
  AttentionData data_;
  gpu::DeviceBuffer q_, k_, v_, o_, table_, partial_;
  DecodeArgs args_{};
};

}  // namespace

std::unique_ptr<Instance> create_attention_cuda(const Problem& problem, std::uint64_t seed) {
  const auto s = shape_of(problem);
  const Dtype dtype = problem.dtype;
  if (s.impl == "cudnn") {
    if (auto why = cudnn_unsupported(s, dtype); !why.empty()) throw PointSkipped(why);
#if ROOFTOP_HAVE_CUDNN
    return std::make_unique<CudnnCuda>(s, dtype, seed);
#else
    throw PointSkipped("this build found no cuDNN headers (cudnn_graph.h): install cuDNN 9's development files, or "
                       "configure with -DROOFTOP_CUDNN_INCLUDE_DIR=<dir> (a PyTorch install has them under "
                       "site-packages/nvidia/cudnn/include), and build again");
#endif
  }
  if (s.decode) return std::make_unique<DecodeCuda>(s, dtype, seed);
  if (s.impl == "cublaslt") {
    if (dtype != Dtype::bf16 && dtype != Dtype::fp16) throw PointSkipped("the cuBLASLt path takes bf16 or fp16");
    return std::make_unique<UnfusedCuda>(s, dtype, seed);
  }
  if (s.impl != "fused") throw PointSkipped("the " + s.impl + " attention path runs on the CPU backend");
#if ROOFTOP_GPU_HAS_MMA_SYNC
  if (s.sq > std::numeric_limits<int>::max() - 256) throw PointSkipped("the prefill kernel indexes rows with int");
  const PrefillConfig config = prefill_config(s, dtype);
  if (auto why = prefill_unsupported(config, s.d, dtype); !why.empty()) throw PointSkipped(why);
  return std::make_unique<PrefillCuda>(s, dtype, config, seed);
#else
  throw PointSkipped("the fused prefill kernel runs on tensor cores through mma.sync, ldmatrix, cp.async or wgmma "
                     "(NVIDIA PTX); this HIP build has no fused prefill yet");
#endif
}

namespace {
#if ROOFTOP_GPU_HAS_MMA_SYNC
// The tiles besides the default (tune times the default on its own) that this GPU runs. A
// GPU that cannot be asked leaves the point untunable rather than ending the run.
std::vector<std::string> runnable_prefill_tiles(const AttentionShape& s, Dtype dtype) {
  std::vector<std::string> names;
  if (dtype != Dtype::bf16 && dtype != Dtype::fp16) return names;  // fp32 has no tensor-core prefill
  try {
    const PrefillConfig fallback = default_prefill_config(s.d, dtype);
    for (const auto& c : prefill_configs())
      if (!(c == fallback) && prefill_unsupported(c, s.d, dtype).empty()) names.push_back(config_name(c));
  } catch (const gpu::GpuError&) {
    names.clear();
  }
  return names;
}
const bool kPrefillTilesRegistered = (register_cuda_prefill_tiles(runnable_prefill_tiles), true);
#endif

// "cuda", or "hip" in a HIP build of the same source.
const RegisterImplementation kAttentionCuda("attention", ROOFTOP_GPU_BACKEND, [](const Problem& p, const SetupContext& setup) {
  return create_attention_cuda(p, setup.seed);
});
}  // namespace

}  // namespace rooftop::attention
