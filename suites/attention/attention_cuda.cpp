#include "suites/attention/attention_cuda.hpp"

#include <fmt/format.h>

#include "devices/cuda/gpu_kernels.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "harness/errors.hpp"
#include "suites/attention/attention_cuda_decode.cuh"
#include "suites/attention/attention_data.hpp"

namespace rooftop::attention {
namespace {

gpu::DeviceBuffer upload(const void* host, std::size_t bytes) {
  gpu::DeviceBuffer d(bytes);
  ROOFTOP_GPU_CHECK(cudaMemcpy(d.get(), host, bytes, cudaMemcpyHostToDevice));
  return d;
}

class DecodeCuda final : public Instance {
 public:
  DecodeCuda(const AttentionShape& s, Dtype dtype, std::uint64_t seed) : seed_(seed), data_(check_shape(s), dtype, seed) {
    q_ = upload(data_.q(), data_.q_bytes());
    k_ = upload(data_.k_pool(), data_.kv_bytes());
    v_ = upload(data_.v_pool(), data_.kv_bytes());
    o_ = gpu::DeviceBuffer(data_.q_bytes());
    if (s.block) table_ = upload(data_.block_table().data(), data_.block_table().size() * sizeof(std::int32_t));
    int device = 0, sms = 0;
    ROOFTOP_GPU_CHECK(cudaGetDevice(&device));
    ROOFTOP_GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int splits = decode_splits(s.b, s.hkv, s.skv, sms);
    partial_ = gpu::DeviceBuffer(static_cast<std::size_t>(decode_workspace_floats(s.b, s.hq, s.d, splits)) * sizeof(float));
    args_ = {dtype, s.b, s.hq, s.hkv, s.skv, s.d, s.block, q_.get(), k_.get(), v_.get(),
             s.block ? table_.as<std::int32_t>() : nullptr, o_.get(), partial_.as<float>(), splits};
  }

  std::string implementation() const override {
    return fmt::format("rooftop split-KV decode ({} splits x 4 warps, {} cache)", args_.splits,
                       args_.block ? fmt::format("paged {}", args_.block) : "contiguous");
  }

  Correctness check() override {
    const auto out = data_.dtype() == Dtype::fp32 ? gpu::OutputType::f32
                     : data_.dtype() == Dtype::bf16 ? gpu::OutputType::bf16 : gpu::OutputType::f16;
    gpu::poison(out, o_.get(), data_.q_bytes() / input_size(data_.dtype()));
    run();
    ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
    ROOFTOP_GPU_CHECK(cudaMemcpy(data_.o(), o_.get(), data_.q_bytes(), cudaMemcpyDeviceToHost));
    return data_.check(seed_ + 7);
  }

  void run() override { launch_decode(args_); }

 private:
  static const AttentionShape& check_shape(const AttentionShape& s) {
    const auto g = s.group();
    if (g != 1 && g != 2 && g != 4 && g != 8)
      throw PointSkipped(fmt::format("the decode kernel keeps 1, 2, 4 or 8 query heads per KV head in registers, "
                                     "not {}", g));
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
  if (!s.decode)
    throw PointSkipped("prefill on CUDA needs the fused tensor-core kernel, not in this build yet");
  return std::make_unique<DecodeCuda>(s, parse_dtype(problem.dtype), seed);
}

}  // namespace rooftop::attention
