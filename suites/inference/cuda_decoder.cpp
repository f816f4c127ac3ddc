#include "suites/inference/cuda_decoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "harness/errors.hpp"
#include "harness/stage_trace.hpp"
#include "suites/attention/attention_cuda_decode.cuh"
#include "suites/inference/cuda_decoder_kernels.cuh"

namespace rooftop::inference {
namespace {

template <typename T>
gpu::DeviceBuffer upload(const std::vector<T>& host) {
  gpu::DeviceBuffer d(host.size() * sizeof(T));
  ROOFTOP_GPU_CHECK(cudaMemcpyAsync(d.get(), host.data(), d.bytes(), cudaMemcpyHostToDevice, gpu::stream()));
  return d;
}

// A stage's time is the GPU's: the host waits for the queue at each stage's end while a
// recorder is set (the profiling pass only; the timed runs queue freely).
struct GpuStage {
  GpuStage(StageRecorder* r, const char* name, int layer) : scope(r, name, layer), r_(r) {}
  ~GpuStage() {
    if (r_) cudaStreamSynchronize(gpu::stream());  // before the scope records its end
  }
  StageRecorder::Scope scope;
  StageRecorder* r_;
};

}  // namespace

CudaDecoder::CudaDecoder(const DecoderWeights& w, std::int64_t batch, std::int64_t max_context, std::int64_t layers)
    : w_(w), batch_(batch), max_context_(max_context),
      layers_(layers < 0 ? static_cast<std::int64_t>(w.layers.size()) : std::min<std::int64_t>(layers, static_cast<std::int64_t>(w.layers.size()))) {
  if (w.dtype != Dtype::bf16) throw PointSkipped("the CUDA decoder runs bf16 (fp8 weights are not here yet)");
  const auto& c = w.config;
  embedding_ = upload(w.embedding);
  head_ = w.lm_head.empty() ? gpu::DeviceBuffer() : upload(w.lm_head);
  final_norm_ = upload(w.final_norm);
  for (std::int64_t l = 0; l < layers_; ++l) {
    const auto& L = w.layers[static_cast<std::size_t>(l)];
    layer_weights_.push_back({upload(L.attn_norm), upload(L.mlp_norm), upload(L.qkv), upload(L.o), upload(L.gate_up), upload(L.down)});
  }
  const std::size_t cache = static_cast<std::size_t>(layers_ * batch * c.kv_heads * max_context * c.head_dim) * 2;
  k_cache_ = gpu::DeviceBuffer(std::max<std::size_t>(cache, 2));
  v_cache_ = gpu::DeviceBuffer(std::max<std::size_t>(cache, 2));
  logits_ = gpu::DeviceBuffer(static_cast<std::size_t>(batch * c.vocab) * 4);
  next_ = gpu::DeviceBuffer(static_cast<std::size_t>(batch) * 4);
  host_logits_.assign(static_cast<std::size_t>(batch * c.vocab), 0.0f);
  prepare_rows(batch);
  const std::int64_t group = c.heads / c.kv_heads;
  split_decode_ = (c.head_dim == 64 || c.head_dim == 128) && group <= attention::kMaxDecodeGroup;
  if (split_decode_) {
    resident_blocks_ = attention::decode_resident_blocks(Dtype::bf16, c.head_dim, group);
    q16_ = gpu::DeviceBuffer(static_cast<std::size_t>(batch * c.heads * c.head_dim) * 2);
    int most = 1;  // the workspace for the most splits any length up to max_context takes
    for (std::int64_t skv = 1; skv <= max_context; skv += std::max<std::int64_t>(1, max_context / 64))
      most = std::max(most, attention::decode_splits(batch, c.kv_heads, skv, resident_blocks_));
    most = std::max(most, attention::decode_splits(batch, c.kv_heads, max_context, resident_blocks_));
    decode_workspace_ = gpu::DeviceBuffer(
        static_cast<std::size_t>(attention::decode_workspace_floats(batch, c.heads, c.kv_heads, c.head_dim, most)) * 4);
    ROOFTOP_GPU_CHECK(cudaMemsetAsync(decode_workspace_.get(), 0, decode_workspace_.bytes(), gpu::stream()));
  }
  ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
}

CudaDecoder::~CudaDecoder() = default;

gpu::CublasLtMatmul& CudaDecoder::matmul(std::int64_t m, std::int64_t n, std::int64_t k) {
  auto& slot = matmuls_[{m, n, k}];
  if (!slot) {
    gpu::MatmulShape s;
    s.m = m;
    s.n = n;
    s.k = k;
    s.b_stored_nk = true;
    s.d_fp32 = true;
    slot = std::make_unique<gpu::CublasLtMatmul>(Dtype::bf16, s);
  }
  return *slot;
}

void CudaDecoder::ensure_rows(std::int64_t rows) {
  if (rows <= rows_) return;
  const auto& c = w_.config;
  rows_ = rows;
  tokens_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows) * 4);
  h_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows * c.hidden) * 4);
  xn_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows * c.hidden) * 2);
  qkv_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows * c.qkv_width()) * 4);
  attn_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows * c.heads * c.head_dim) * 2);
  proj_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows * c.hidden) * 4);
  gate_up_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows * 2 * c.intermediate) * 4);
  act_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows * c.intermediate) * 2);
}

void CudaDecoder::prepare_rows(std::int64_t rows) {
  const auto& c = w_.config;
  ensure_rows(rows);
  matmul(rows, c.qkv_width(), c.hidden);
  matmul(rows, c.hidden, c.heads * c.head_dim);
  matmul(rows, 2 * c.intermediate, c.hidden);
  matmul(rows, c.hidden, c.intermediate);
  matmul(batch_, c.vocab, c.hidden);
}

void CudaDecoder::set_length(std::int64_t length) {
  if (length < 0 || length > max_context_) throw std::logic_error("cache length out of range");
  length_ = length;
}

void CudaDecoder::fill_cache_randomly(std::int64_t length, std::uint64_t seed) {
  set_length(length);
  const auto n = static_cast<std::int64_t>(k_cache_.bytes() / 2);
  kernels::fill_bf16(k_cache_.get(), n, seed, -1.7f, 1.7f);
  kernels::fill_bf16(v_cache_.get(), n, seed + 1, -1.7f, 1.7f);
  ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
}

const std::vector<float>& CudaDecoder::logits() {
  ROOFTOP_GPU_CHECK(cudaMemcpy(host_logits_.data(), logits_.get(), logits_.bytes(), cudaMemcpyDeviceToHost));
  return host_logits_;
}

void CudaDecoder::poison_logits() {
  kernels::poison_f32(logits_.as<float>(), static_cast<std::int64_t>(logits_.bytes() / 4));
}

std::string CudaDecoder::implementation() const {
  std::string algo;
  if (!matmuls_.empty()) algo = matmuls_.rbegin()->second->algorithm_label();
  return fmt::format("cuBLASLt bf16 matmuls ({} and others); rooftop RMSNorm, RoPE with the cache write, {}, SwiGLU, "
                     "argmax; eager launches", algo,
                     split_decode_ ? "the attention suite's split-KV decode kernel (prefill: a plain attention kernel)"
                                   : "a plain attention kernel");
}

void CudaDecoder::decode_attention(const void* k, const void* v) {
  const auto& c = w_.config;
  attention::DecodeArgs a{};
  a.dtype = Dtype::bf16;
  a.b = batch_;
  a.hq = c.heads;
  a.hkv = c.kv_heads;
  a.skv = length_ + 1;  // the new token's key is in the cache already
  a.d = c.head_dim;
  a.block = 0;
  a.q = q16_.get();
  a.k = k;
  a.v = v;
  a.o = attn_.get();
  a.partial = decode_workspace_.as<float>();
  a.splits = attention::decode_splits(batch_, c.kv_heads, a.skv, resident_blocks_);
  a.capacity = max_context_;
  if (a.splits != last_splits_) {
    // The tickets sit after the partials, so they move with the split count: zero them there.
    const std::int64_t at = attention::decode_workspace_floats(batch_, c.heads, c.kv_heads, c.head_dim, a.splits) -
                            batch_ * c.kv_heads;
    ROOFTOP_GPU_CHECK(cudaMemsetAsync(decode_workspace_.as<float>() + at, 0, static_cast<std::size_t>(batch_ * c.kv_heads) * 4,
                                      gpu::stream()));
    last_splits_ = a.splits;
  }
  attention::launch_decode(a);
}

void CudaDecoder::forward(std::span<const std::int32_t> tokens, std::int64_t per_seq, std::span<std::int32_t> next) {
  const auto& c = w_.config;
  if (length_ + per_seq > max_context_) throw std::logic_error("the KV cache is full");
  const std::int64_t rows = batch_ * per_seq, hidden = c.hidden, d = c.head_dim;
  ensure_rows(rows);
  const float eps = static_cast<float>(c.rms_eps);
  const std::size_t cache_layer = static_cast<std::size_t>(batch_ * c.kv_heads * max_context_ * d) * 2;
  const GpuStage whole(recorder_, "forward", -1);
  std::optional<GpuStage> stage;
  stage.emplace(recorder_, "embedding", -1);
  ROOFTOP_GPU_CHECK(cudaMemcpyAsync(tokens_.get(), tokens.data(), static_cast<std::size_t>(rows) * 4, cudaMemcpyHostToDevice,
                                    gpu::stream()));
  kernels::embed(tokens_.as<std::int32_t>(), embedding_.get(), h_.as<float>(), rows, hidden);
  stage.reset();
  for (std::int64_t l = 0; l < layers_; ++l) {
    auto& L = layer_weights_[static_cast<std::size_t>(l)];
    const int li = static_cast<int>(l);
    const GpuStage layer(recorder_, "layer", li);
    char* kc = static_cast<char*>(k_cache_.get()) + static_cast<std::size_t>(l) * cache_layer;
    char* vc = static_cast<char*>(v_cache_.get()) + static_cast<std::size_t>(l) * cache_layer;
    stage.emplace(recorder_, "attn_norm", li);
    kernels::rms_norm(h_.as<float>(), L.attn_norm.as<float>(), xn_.get(), rows, 1, 0, hidden, eps);
    stage.emplace(recorder_, "qkv", li);
    matmul(rows, c.qkv_width(), hidden).execute_on(xn_.get(), L.qkv.get(), qkv_.get());
    const bool split = split_decode_ && per_seq == 1;
    stage.emplace(recorder_, "rope", li);
    kernels::rope_and_cache(qkv_.as<float>(), kc, vc, split ? q16_.get() : nullptr, batch_, per_seq, length_, c.heads,
                            c.kv_heads, d, max_context_, c.rope_theta);
    stage.emplace(recorder_, "attention", li);
    if (split) decode_attention(kc, vc);
    else kernels::attention(qkv_.as<float>(), kc, vc, attn_.get(), batch_, per_seq, length_, c.heads, c.kv_heads, d, max_context_);
    stage.emplace(recorder_, "o_proj", li);
    matmul(rows, hidden, c.heads * d).execute_on(attn_.get(), L.o.get(), proj_.get());
    kernels::add(h_.as<float>(), proj_.as<float>(), rows * hidden);
    stage.emplace(recorder_, "mlp_norm", li);
    kernels::rms_norm(h_.as<float>(), L.mlp_norm.as<float>(), xn_.get(), rows, 1, 0, hidden, eps);
    stage.emplace(recorder_, "gate_up", li);
    matmul(rows, 2 * c.intermediate, hidden).execute_on(xn_.get(), L.gate_up.get(), gate_up_.get());
    stage.emplace(recorder_, "swiglu", li);
    kernels::swiglu(gate_up_.as<float>(), act_.get(), rows, c.intermediate);
    stage.emplace(recorder_, "down", li);
    matmul(rows, hidden, c.intermediate).execute_on(act_.get(), L.down.get(), proj_.get());
    kernels::add(h_.as<float>(), proj_.as<float>(), rows * hidden);
    stage.reset();
  }
  length_ += per_seq;
  stage.emplace(recorder_, "final_norm", -1);
  kernels::rms_norm(h_.as<float>(), final_norm_.as<float>(), xn_.get(), batch_, per_seq, per_seq - 1, hidden, eps);
  stage.emplace(recorder_, "lm_head", -1);
  matmul(batch_, c.vocab, hidden).execute_on(xn_.get(), head_.get() ? head_.get() : embedding_.get(), logits_.get());
  stage.emplace(recorder_, "sampling", -1);
  kernels::argmax(logits_.as<float>(), next_.as<std::int32_t>(), batch_, c.vocab);
  ROOFTOP_GPU_CHECK(cudaMemcpyAsync(next.data(), next_.get(), static_cast<std::size_t>(batch_) * 4, cudaMemcpyDeviceToHost,
                                    gpu::stream()));
  ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
}

}  // namespace rooftop::inference
