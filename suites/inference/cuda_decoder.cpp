#include "suites/inference/cuda_decoder.hpp"

#include <fmt/format.h>

#include <cuda_profiler_api.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "harness/errors.hpp"
#include "harness/stage_trace.hpp"
#include "suites/attention/attention_cuda_decode.cuh"
#include "suites/inference/cuda_decoder_kernels.cuh"
#include "devices/cuda/nccl_transport.hpp"
#include "suites/inference/cuda_tp_all_reduce.hpp"
#include "suites/inference/reference_decoder.hpp"

namespace rooftop::inference {
namespace {

template <typename T>
gpu::DeviceBuffer upload(const std::vector<T>& host) {
  gpu::DeviceBuffer d(host.size() * sizeof(T));
  ROOFTOP_GPU_CHECK(cudaMemcpyAsync(d.get(), host.data(), d.bytes(), cudaMemcpyHostToDevice, gpu::stream()));
  return d;
}

// ROOFTOP_PROFILE_DECODE_STEP=N brackets the process's N-th decode step (one token a
// sequence) with cudaProfilerStart/Stop, once, so `ncu --profile-from-start off` records
// exactly one step's kernels (docs/inference.md, "Where a step's time goes").
bool profile_this_step() {
  static const long wanted = [] {
    const char* v = std::getenv("ROOFTOP_PROFILE_DECODE_STEP");
    return v ? std::strtol(v, nullptr, 10) : 0L;
  }();
  static std::atomic<long> seen{0};
  return wanted > 0 && ++seen == wanted;
}

}  // namespace

// The profiling pass's clock: an event queued before and after each stage, read once the
// forward is done, so the stages run back to back as in a timed forward (no wait between
// them). A stage's time is the GPU's from its start event to its end event: where the host
// queues more slowly than the GPU runs, the wait for its launch is inside the stage.
class CudaStageTimer {
 public:
  CudaStageTimer() = default;
  CudaStageTimer(const CudaStageTimer&) = delete;
  CudaStageTimer& operator=(const CudaStageTimer&) = delete;
  ~CudaStageTimer() {
    for (cudaEvent_t e : pool_) cudaEventDestroy(e);
  }
  // The stream is idle here: the origin event runs when the host reads its clock.
  void start_forward(StageRecorder& r) {
    ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
    used_ = 0;
    stages_.clear();
    origin_ = record();
    host_origin_s_ = r.now();
  }
  std::size_t open(const char* name, int layer) {
    stages_.push_back({name, layer, record(), nullptr});
    return stages_.size() - 1;
  }
  // From a destructor: an error here is left for the forward's next checked call to report.
  void close(std::size_t stage) noexcept {
    try {
      stages_[stage].end = record();
    } catch (...) {
      stages_[stage].end = nullptr;
    }
  }
  void finish_forward(StageRecorder& r) {
    ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
    for (const auto& st : stages_) {
      if (!st.end) throw std::runtime_error(std::string("the profiling pass could not time stage ") + st.name);
      float start_ms = 0, end_ms = 0;
      ROOFTOP_GPU_CHECK(cudaEventElapsedTime(&start_ms, origin_, st.start));
      ROOFTOP_GPU_CHECK(cudaEventElapsedTime(&end_ms, origin_, st.end));
      r.record(st.name, st.layer, host_origin_s_ + start_ms * 1e-3, host_origin_s_ + end_ms * 1e-3);
    }
  }

 private:
  struct Stage {
    const char* name;
    int layer;
    cudaEvent_t start, end;
  };
  cudaEvent_t record() {
    if (used_ == pool_.size()) {
      cudaEvent_t e = nullptr;
      ROOFTOP_GPU_CHECK(cudaEventCreate(&e));
      pool_.push_back(e);
    }
    cudaEvent_t e = pool_[used_++];
    ROOFTOP_GPU_CHECK(cudaEventRecord(e, gpu::stream()));
    return e;
  }
  std::vector<cudaEvent_t> pool_;
  std::size_t used_ = 0;
  std::vector<Stage> stages_;
  cudaEvent_t origin_ = nullptr;
  double host_origin_s_ = 0;
};

namespace {

// One stage of the profiling pass, from construction to destruction (no timer: nothing).
class GpuStage {
 public:
  GpuStage(CudaStageTimer* t, const char* name, int layer) : t_(t), index_(t ? t->open(name, layer) : 0) {}
  ~GpuStage() {
    if (t_) t_->close(index_);
  }
  GpuStage(const GpuStage&) = delete;
  GpuStage& operator=(const GpuStage&) = delete;

 private:
  CudaStageTimer* t_;
  std::size_t index_;
};

}  // namespace

namespace {

std::shared_ptr<TensorParallelGroup> bound_to_stream(std::shared_ptr<TensorParallelGroup> group) {
  if (!group || group->tp() <= 1) return nullptr;
  // The all-reduces go on the decoder's stream, between its kernels (and into its graph).
  if (!queue_nccl_on(group->transport(), gpu::stream()))
    throw std::logic_error("tensor parallel on CUDA needs the run's NCCL transport, not " + group->transport().name());
  return group;
}

}  // namespace

CudaDecoder::CudaDecoder(const DecoderWeights& full, std::int64_t batch, std::int64_t max_context, std::int64_t layers,
                         Launch decode_launch, std::int64_t page, bool fused, std::shared_ptr<TensorParallelGroup> tp_group)
    : group_(bound_to_stream(std::move(tp_group))), slice_(decoder_slice(full, group_ ? group_->tp() : 1, group_ ? group_->rank() : 0)),
      shard_(decoder_shard(full, slice_, layers)), model_vocab_(full.model_config().vocab), w_(shard_ ? *shard_ : full),
      batch_(batch), max_context_(max_context),
      layers_(layers < 0 ? static_cast<std::int64_t>(w_.layers.size()) : std::min<std::int64_t>(layers, static_cast<std::int64_t>(w_.layers.size()))),
      decode_launch_(decode_launch), fp8_(w_.dtype == Dtype::fp8), fused_(fused) {
  const auto& w = w_;
  if (w.dtype != Dtype::bf16 && !fp8_)
    throw PointSkipped(fmt::format("the CUDA decoder runs bf16 and fp8, not {}", dtype_name(w.dtype)));
  const auto& c = w.config;
  if (group_) {
    tp_keys_ = gpu::DeviceBuffer(static_cast<std::size_t>(batch) * 8);
    tp_gathered_ = gpu::DeviceBuffer(static_cast<std::size_t>(batch * group_->tp()) * 8);
    tp_reduce_ = std::make_unique<TpAllReduce>(*group_, static_cast<std::size_t>(batch * c.hidden));
  }
  embedding_ = upload(w.embedding);
  head_ = w.lm_head.empty() ? gpu::DeviceBuffer() : upload(w.lm_head);
  final_norm_ = upload(w.final_norm);
  for (std::int64_t l = 0; l < layers_; ++l) {
    const auto& L = w.layers[static_cast<std::size_t>(l)];
    const auto bias = [&](const std::vector<float>& b) { return b.empty() ? gpu::DeviceBuffer() : upload(b); };
    layer_weights_.push_back({upload(L.attn_norm), upload(L.mlp_norm), upload(L.qkv), upload(L.o), upload(L.gate_up),
                              upload(L.down), bias(L.qkv_bias), bias(L.o_bias), bias(L.gate_up_bias), bias(L.down_bias)});
  }
  if (page != 0 && page != 16 && page != 32)
    throw std::invalid_argument("a paged KV cache has pages of 16 or 32 positions (the decode kernel's)");
  cache_.page = page;
  cache_.capacity = page ? (max_context + page - 1) / page * page : max_context;
  if (page) {
    // Every sequence's pages, shuffled across the cache (seeded): no sequence's pages are
    // consecutive, so an indexing error cannot hide behind a contiguous layout.
    std::vector<std::int32_t> table(static_cast<std::size_t>(batch * cache_.capacity / page));
    for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<std::int32_t>(i);
    std::uint64_t state = 0x9e3779b97f4a7c15ull;
    for (std::size_t i = table.size(); i > 1; --i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      std::swap(table[i - 1], table[static_cast<std::size_t>((state >> 33) % i)]);
    }
    block_table_ = upload(table);
    cache_.block_table = block_table_.as<std::int32_t>();
  }
  const std::size_t cache = static_cast<std::size_t>(layers_ * batch * c.kv_heads * cache_.capacity * c.head_dim) * 2;
  k_cache_ = gpu::DeviceBuffer(std::max<std::size_t>(cache, 2));
  v_cache_ = gpu::DeviceBuffer(std::max<std::size_t>(cache, 2));
  logits_ = gpu::DeviceBuffer(static_cast<std::size_t>(batch * c.vocab) * 4);
  next_ = gpu::DeviceBuffer(static_cast<std::size_t>(batch) * 4);
  next_host_ = std::make_unique<gpu::PinnedBuffer>(static_cast<std::size_t>(batch) * 4);
  rope_table_ = upload(kernels::rope_table(max_context, c.rope_inverse_frequencies(), c.rope_amplitude()));
  argmax_workspace_ = gpu::DeviceBuffer(static_cast<std::size_t>(kernels::argmax_workspace_bytes(batch)));
  ROOFTOP_GPU_CHECK(cudaMemsetAsync(argmax_workspace_.get(), 0, argmax_workspace_.bytes(), gpu::stream()));
  host_logits_.assign(static_cast<std::size_t>(batch * c.vocab), 0.0f);
  const bool fused_dims = c.head_dim == 64 || c.head_dim == 128;
  const std::int64_t group = c.heads / c.kv_heads;  // the split kernel runs groups 1 to 16
  split_decode_ = fused_dims && c.heads % c.kv_heads == 0 && group >= 1 && group <= attention::kMaxDecodeGroup;
  if (!split_decode_)
    no_fast_decode_ = fused_dims ? fmt::format("group {}", group) : fmt::format("head dim {}", c.head_dim);
  if (split_decode_) {
    const int resident = attention::decode_resident_blocks(Dtype::bf16, c.head_dim, c.heads / c.kv_heads);
    decode_splits_ = attention::decode_splits(batch, c.kv_heads, max_context, resident);
    decode_workspace_ = gpu::DeviceBuffer(static_cast<std::size_t>(
        attention::decode_workspace_floats(batch, c.heads, c.kv_heads, c.head_dim, decode_splits_) * 4));
    ROOFTOP_GPU_CHECK(cudaMemsetAsync(decode_workspace_.get(), 0, decode_workspace_.bytes(), gpu::stream()));
  }
  if (fused_dims) {
    prefill_config_ = attention::default_prefill_config(c.head_dim, Dtype::bf16);
    fused_prefill_ok_ = attention::prefill_unsupported(prefill_config_, c.head_dim, Dtype::bf16).empty();
  }
  prepare_rows(batch);
  ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
}

CudaDecoder::~CudaDecoder() = default;

void CudaDecoder::set_recorder(StageRecorder* recorder) {
  recorder_ = recorder;
  if (!recorder) return;
  recorder->set_clock("CUDA events around each stage, launched eagerly");
  if (!stage_timer_) stage_timer_ = std::make_unique<CudaStageTimer>();
}

bool CudaDecoder::swiglu_in_gate_up(std::int64_t per_seq) const {
  const auto& c = w_.config;
  if (c.mlp_bias) return false;  // the gate and up biases come before SwiGLU: its own kernel adds them
  const std::int64_t rows = batch_ * per_seq;
  const bool chosen = rows != batch_ || decode_choice_.empty() || decode_choice_[gate_up].gemv;
  return chosen && kernels::gemv_fits(rows, 2 * c.intermediate, c.hidden, kernels::GemvEpilogue::swiglu, fp8_);
}

bool CudaDecoder::norms_in_projections(std::int64_t per_seq) const {
  if (!fused_ || fp8_ || per_seq != 1) return false;
  const auto& c = w_.config;
  const auto by_gemv = [&](Projection p, std::int64_t n, kernels::GemvEpilogue e) {
    return kernels::gemv_fits(batch_, n, c.hidden, e, false) && (decode_choice_.empty() || decode_choice_[p].gemv);
  };
  return swiglu_in_gate_up(1) && by_gemv(qkv, c.qkv_width(), kernels::GemvEpilogue::store);
}

bool CudaDecoder::final_norm_in_head(std::int64_t per_seq) const {
  const bool by_gemv = kernels::gemv_fits(batch_, w_.config.vocab, w_.config.hidden, kernels::GemvEpilogue::store, false) &&
                       (decode_choice_.empty() || decode_choice_[lm_head].gemv);
  return norms_in_projections(per_seq) && by_gemv;  // cuBLASLt can be faster on the LM head alone (H200)
}

void CudaDecoder::project(Projection p, std::int64_t rows, std::int64_t n, std::int64_t k, const void* x, const void* w,
                          void* y, kernels::GemvEpilogue epilogue, const Fp8Scales& scales, float act_inverse,
                          const kernels::GemvNorm* norm, const kernels::GemvRope* rope) {
  using kernels::GemvEpilogue;
  const ProjectionChoice* choice = rows == batch_ && !decode_choice_.empty() ? &decode_choice_[p] : nullptr;
  if (kernels::gemv_fits(rows, n, k, epilogue, fp8_) && (!choice || choice->gemv)) {
    const kernels::GemvFp8 scaled{alpha_of(scales), act_inverse};
    return kernels::gemv(x, w, y, rows, n, k, epilogue, choice ? choice->config : kernels::GemvConfig{},
                         fp8_ ? &scaled : nullptr, norm, rope);
  }
  if (norm || rope) throw std::logic_error("a norm or RoPE folded into a projection that the GEMV does not run");
  if (epilogue == GemvEpilogue::swiglu) {  // the matmul, then the SwiGLU kernel
    matmul(rows, n, k).execute_on(x, w, gate_up_.get(), alpha_of(scales));
    return kernels::swiglu(gate_up_.as<float>(), y, rows, n / 2, act_inverse);
  }
  matmul(rows, n, k).execute_on(x, w, y, alpha_of(scales), epilogue == GemvEpilogue::accumulate ? 1.0f : 0.0f);
}

float CudaDecoder::inverse_of(const Fp8Scales& s) const { return fp8_ ? fp8_inverse_scale(s.input) : 0.0f; }
float CudaDecoder::alpha_of(const Fp8Scales& s) const { return fp8_ ? s.input * s.weight : 1.0f; }

void CudaDecoder::tune_decode_projections() {
  using kernels::GemvEpilogue;
  const auto& c = w_.config;
  const std::int64_t m = batch_, h = c.hidden, q = c.heads * c.head_dim, in = c.intermediate;
  // Seeded inputs: timing on zeros (fresh allocations) can flatter a kernel. fp8 inputs are
  // quantised from bf16 ones (random bytes would hold NaNs).
  if (fp8_) {
    kernels::fill_bf16(gate_up_.get(), m * std::max({h, q, in}), 11, -1, 1);
    kernels::quantize_e4m3(gate_up_.get(), xn_.get(), m * h, 1);
    kernels::quantize_e4m3(gate_up_.get(), x8_.get(), m * q, 1);
    kernels::quantize_e4m3(gate_up_.get(), act_.get(), m * in, 1);
  } else {
    kernels::fill_bf16(xn_.get(), m * h, 11, -1, 1);
    kernels::fill_bf16(attn_.get(), m * q, 12, -1, 1);
    kernels::fill_bf16(act_.get(), m * in, 13, -1, 1);
  }
  const void* head = head_.get() ? head_.get() : embedding_.get();
  const Fp8Scales unit{1, 1};
  struct Shape {
    const char* name;
    std::int64_t n, k;
    const void* x;
    void* y;
    GemvEpilogue epilogue;
  };
  const Shape shapes[kProjections] = {
      {"qkv", c.qkv_width(), h, xn_.get(), qkv_.get(), GemvEpilogue::store},
      {"o_proj", h, q, fp8_ ? x8_.get() : attn_.get(), h_.get(), GemvEpilogue::accumulate},
      {"gate_up", 2 * in, h, xn_.get(), act_.get(), GemvEpilogue::swiglu},
      {"down", h, in, act_.get(), h_.get(), GemvEpilogue::accumulate},
      {"lm_head", c.vocab, h, xn_.get(), logits_.get(), GemvEpilogue::store},
  };
  const auto weights = [&](int p, std::int64_t l) -> const void* {
    const auto& L = layer_weights_[static_cast<std::size_t>(l)];
    switch (p) {
      case qkv: return L.qkv.get();
      case o_proj: return L.o.get();
      case gate_up: return L.gate_up.get();
      case down: return L.down.get();
      default: return head;
    }
  };
  cudaEvent_t start = nullptr, stop = nullptr;
  ROOFTOP_GPU_CHECK(cudaEventCreate(&start));
  ROOFTOP_GPU_CHECK(cudaEventCreate(&stop));
  decode_choice_.assign(kProjections, {});
  try {
    for (int p = 0; p < kProjections; ++p) {
      const Shape& s = shapes[p];
      const std::int64_t layers = p == lm_head ? 1 : layers_;
      // One pass over the layers' weights, then two timed: each matrix cold in the L2 unless
      // the whole set fits it, as in a forward.
      const auto time_us = [&](const auto& run_on) {
        for (std::int64_t l = 0; l < layers; ++l) run_on(weights(p, l));
        ROOFTOP_GPU_CHECK(cudaEventRecord(start, gpu::stream()));
        for (int round = 0; round < 2; ++round)
          for (std::int64_t l = 0; l < layers; ++l) run_on(weights(p, l));
        ROOFTOP_GPU_CHECK(cudaEventRecord(stop, gpu::stream()));
        ROOFTOP_GPU_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        ROOFTOP_GPU_CHECK(cudaEventElapsedTime(&ms, start, stop));
        return ms * 1e3 / static_cast<double>(2 * layers);
      };
      ProjectionChoice& best = decode_choice_[static_cast<std::size_t>(p)];
      // The fused step folds the RMSNorm before qkv, gate_up and the LM head into the GEMV: there
      // the GEMV is timed with its prologue, and cuBLASLt with the norm kernel it then needs (a
      // GEMV a few percent slower alone must not turn the whole step's fusions off).
      const bool folds = fused_ && !fp8_ && (p == qkv || p == gate_up || p == lm_head);
      const kernels::GemvNorm fold_norm{h_.as<float>(), final_norm_.as<float>(), static_cast<float>(c.rms_eps), h};
      double best_us = time_us([&](const void* w) {  // cuBLASLt, and the SwiGLU kernel where its epilogue has none
        if (folds) kernels::rms_norm(h_.as<float>(), final_norm_.as<float>(), xn_.get(), m, 1, 0, h, fold_norm.eps);
        if (s.epilogue == GemvEpilogue::swiglu) {
          matmul(m, s.n, s.k).execute_on(s.x, w, gate_up_.get());
          kernels::swiglu(gate_up_.as<float>(), s.y, m, s.n / 2, inverse_of(unit));
        } else {
          matmul(m, s.n, s.k).execute_on(s.x, w, s.y, 1, s.epilogue == GemvEpilogue::accumulate ? 1.0f : 0.0f);
        }
      });
      best.gemv = false;
      std::string tried = fmt::format("cuBLASLt{} {:.1f}", folds ? " with the norm kernel" : "", best_us);
      const kernels::GemvFp8 scaled{1, inverse_of(unit)};
      if (kernels::gemv_fits(m, s.n, s.k, s.epilogue, fp8_))
        for (const auto& config : kernels::gemv_configs()) {
          const double us = time_us([&](const void* w) {
            kernels::gemv(s.x, w, s.y, m, s.n, s.k, s.epilogue, config, fp8_ ? &scaled : nullptr,
                          folds ? &fold_norm : nullptr);
          });
          tried += fmt::format(", {} {:.1f}", kernels::gemv_config_name(config), us);
          if (us < best_us) {
            best_us = us;
            best.gemv = true;
            best.config = config;
          }
        }
      best.evidence = fmt::format("{} {}x{}: {} ({} us)", s.name, s.n, s.k,
                                  best.gemv ? "GEMV " + kernels::gemv_config_name(best.config) : "cuBLASLt", tried);
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

gpu::VendorMatmul& CudaDecoder::matmul(std::int64_t m, std::int64_t n, std::int64_t k) {
  auto& slot = matmuls_[{m, n, k}];
  if (!slot) {
    gpu::MatmulShape s;
    s.m = m;
    s.n = n;
    s.k = k;
    s.b_stored_nk = true;
    s.d_fp32 = true;
    slot = std::make_unique<gpu::VendorMatmul>(w_.dtype, s);
  }
  return *slot;
}

void CudaDecoder::ensure_rows(std::int64_t rows) {
  if (rows <= rows_) return;
  const auto& c = w_.config;
  const auto bytes = [&](std::int64_t elements, std::int64_t size) { return static_cast<std::size_t>(rows * elements * size); };
  // Allocated first, then kept: a failed allocation leaves the old buffers and rows_ as they were.
  gpu::DeviceBuffer step(static_cast<std::size_t>(2 + rows) * 4), h(bytes(c.hidden, 4)), xn(bytes(c.hidden, 2)),
      qkv(bytes(c.qkv_width(), 4)), q16(bytes(c.heads * c.head_dim, 2)), attn(bytes(c.heads * c.head_dim, 2)),
      gate_up(bytes(2 * c.intermediate, 4)), act(bytes(c.intermediate, 2)),
      x8(fp8_ ? bytes(c.heads * c.head_dim, 1) : 0);
  gpu::DeviceBuffer k_rows, v_rows;
  if (cache_.page) {
    k_rows = gpu::DeviceBuffer(bytes(c.kv_heads * c.head_dim, 2));
    v_rows = gpu::DeviceBuffer(bytes(c.kv_heads * c.head_dim, 2));
  }
  auto step_host = std::make_unique<gpu::PinnedBuffer>(static_cast<std::size_t>(2 + rows) * 4);
  decode_graph_.reset();  // it points at the buffers replaced here
  step_ = std::move(step);
  step_host_ = std::move(step_host);
  h_ = std::move(h);
  xn_ = std::move(xn);
  qkv_ = std::move(qkv);
  q16_ = std::move(q16);
  attn_ = std::move(attn);
  gate_up_ = std::move(gate_up);
  act_ = std::move(act);
  x8_ = std::move(x8);
  k_rows_ = std::move(k_rows);
  v_rows_ = std::move(v_rows);
  rows_ = rows;
}

void CudaDecoder::prepare_rows(std::int64_t rows) {
  const auto& c = w_.config;
  ensure_rows(rows);
  // The matmuls of a forward of `rows` beyond the GEMV's rows; a decode step's are candidates.
  for (const std::int64_t m : {rows, batch_})
    if (m == batch_ || !kernels::gemv_fits(m, 1, c.hidden, kernels::GemvEpilogue::store, fp8_)) {
      matmul(m, c.qkv_width(), c.hidden);
      matmul(m, c.hidden, c.heads * c.head_dim);
      matmul(m, 2 * c.intermediate, c.hidden);
      matmul(m, c.hidden, c.intermediate);
    }
  matmul(batch_, c.vocab, c.hidden);
  if (decode_choice_.empty()) tune_decode_projections();  // before a graph bakes the choices in
  ensure_decode_graph();
}

void CudaDecoder::ensure_decode_graph() {
  if (decode_launch_ != Launch::graph || !decode_graph_.empty()) return;
  if (!warmed_up_) {
    // One eager step before the first capture, from the constructor while the cache is
    // empty (token 0 at position 0, overwritten by whatever runs next): the libraries'
    // first-call set-up stays out of the graph. A capture itself runs nothing.
    auto* staged = static_cast<std::int32_t*>(step_host_->get());
    std::fill(staged, staged + 2 + batch_, 0);
    staged[1] = 1;
    ROOFTOP_GPU_CHECK(cudaMemcpyAsync(step_.get(), staged, static_cast<std::size_t>(2 + batch_) * 4,
                                      cudaMemcpyHostToDevice, gpu::stream()));
    queue_forward(1);
    ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
    warmed_up_ = true;
  }
  decode_graph_.capture([&] { queue_forward(1); });
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
  if (!group_) {
    ROOFTOP_GPU_CHECK(cudaMemcpy(host_logits_.data(), logits_.get(), logits_.bytes(), cudaMemcpyDeviceToHost));
    return host_logits_;
  }
  // Each rank's vocabulary slice padded to the widest (the first rank's), all-gathered, then
  // laid out by vocabulary: what the checks compare, outside the timing.
  const int tp = group_->tp();
  const std::int64_t local = w_.config.vocab, widest = even_split(model_vocab_, tp, 0).count;
  gpu::DeviceBuffer padded(static_cast<std::size_t>(batch_ * widest) * 4), gathered(padded.bytes() * static_cast<std::size_t>(tp));
  ROOFTOP_GPU_CHECK(cudaMemsetAsync(padded.get(), 0, padded.bytes(), gpu::stream()));
  ROOFTOP_GPU_CHECK(cudaMemcpy2DAsync(padded.get(), static_cast<std::size_t>(widest) * 4, logits_.get(),
                                      static_cast<std::size_t>(local) * 4, static_cast<std::size_t>(local) * 4,
                                      static_cast<std::size_t>(batch_), cudaMemcpyDeviceToDevice, gpu::stream()));
  group_->transport().all_gather(0, padded.get(), gathered.get(), static_cast<std::size_t>(batch_ * widest), Dtype::fp32);
  std::vector<float> all(static_cast<std::size_t>(tp * batch_ * widest));
  ROOFTOP_GPU_CHECK(cudaMemcpyAsync(all.data(), gathered.get(), all.size() * 4, cudaMemcpyDeviceToHost, gpu::stream()));
  wait_for_step();
  host_logits_.assign(static_cast<std::size_t>(batch_ * model_vocab_), 0.0f);
  for (int q = 0; q < tp; ++q) {
    const IndexRange part = even_split(model_vocab_, tp, q);
    for (std::int64_t b = 0; b < batch_; ++b)
      std::copy_n(all.data() + (q * batch_ + b) * widest, part.count, host_logits_.data() + b * model_vocab_ + part.begin);
  }
  return host_logits_;
}

kernels::GemvEpilogue CudaDecoder::residual_epilogue() const {
  return !group_ || group_->rank() == 0 ? kernels::GemvEpilogue::accumulate : kernels::GemvEpilogue::store;
}

void CudaDecoder::all_reduce_hidden(std::int64_t rows, const gpu::DeviceBuffer& next) {
  tp_reduce_->queue(h_.as<float>(), static_cast<std::size_t>(rows * w_.config.hidden), {next.get(), next.bytes()});
}

void CudaDecoder::reduce_argmax(std::int64_t rows) {
  kernels::tp_best_keys(logits_.as<float>(), next_.as<std::int32_t>(), rows, w_.config.vocab, slice_.vocab.begin,
                        tp_keys_.get());
  // 8-byte keys moved as pairs of fp32 words: a gather copies bits.
  group_->transport().all_gather(0, tp_keys_.get(), tp_gathered_.get(), static_cast<std::size_t>(rows) * 2, Dtype::fp32);
  kernels::tp_pick_best(tp_gathered_.get(), group_->tp(), rows, next_.as<std::int32_t>());
}

void CudaDecoder::wait_for_step() {
  if (group_) group_->wait_queued("a tensor-parallel step on the GPU");
  else ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
}

void CudaDecoder::poison_logits() {
  kernels::poison_f32(logits_.as<float>(), static_cast<std::int64_t>(logits_.bytes() / 4));
}

std::string CudaDecoder::implementation() const {
  std::string algo = "none planned yet";
  if (!matmuls_.empty()) algo = matmuls_.rbegin()->second->algorithm_label() + " and others";
  std::string chosen;
  for (const auto& p : decode_choice_) {
    if (!chosen.empty()) chosen += "; ";
    chosen += p.evidence;
  }
  return fmt::format(
      "{}decode-step projections: the faster of rooftop's GEMV (residual and SwiGLU in its epilogue) and cuBLASLt, timed "
      "on this GPU [{}]; prefill: cuBLASLt {} matmuls ({}); rooftop RMSNorm, RoPE with the cache write, argmax; "
      "attention: {}, {}; KV cache {}; decode steps {}",
      fp8_ ? "fp8: e4m3 projection and LM-head weights (per-tensor scales) and inputs (static per-tensor scales, "
             "calibrated), bf16 embedding, cache and attention; "
           : "",
      chosen, dtype_name(w_.dtype), algo, split_decode_ ? "the attention suite's split-KV decode kernel"
                    : fmt::format("no fast decode kernel for {}: the generic kernel ran", no_fast_decode_),
      fused_prefill_ok_ ? "its fused prefill kernel " + attention::config_name(prefill_config_) + " from an empty cache"
                        : "a plain kernel for prefill",
      cache_.page ? fmt::format("paged, {} positions a page, pages shuffled", cache_.page) : std::string("contiguous"),
      decode_launch_ == Launch::graph ? fmt::format("replayed from a CUDA graph ({} nodes)", decode_graph_.nodes())
                                      : "launched eagerly") +
         (group_ ? fmt::format("; tensor parallel over {} GPUs ({}): two fp32 all-reduces of the hidden state a layer, "
                               "queued on the decoder's stream: {}; the LM head's argmax reduced by an all-gather",
                               group_->tp(), group_->transport().name(), tp_reduce_->description())
                 : std::string()) +
         family_notes();
}

std::string CudaDecoder::generic_path(std::int64_t per_seq) const {
  const auto& c = w_.config;
  std::int64_t cut = 0, window = 0;
  for (std::int64_t l = 0; l < layers_; ++l)
    if (window_cuts(l)) ++cut, window = c.window(l);
  if (cut)
    return fmt::format("sliding window {} shorter than the context {}: the generic attention kernel on {} of {} layers",
                       window, max_context_, cut, layers_);
  if (per_seq == 1 && !split_decode_) return fmt::format("no fast decode kernel for {}: the generic kernel ran", no_fast_decode_);
  if (per_seq > 1 && !fused_prefill_ok_)
    return fmt::format("no fused prefill kernel for head dim {}: the generic kernel ran", c.head_dim);
  return {};
}

// What a family's switches cost here: windowed layers on the generic kernel, biases' kernels.
std::string CudaDecoder::family_notes() const {
  const auto& c = w_.config;
  std::string out;
  if (const auto why = generic_path(1); why.starts_with("sliding")) out += "; " + why;
  if (fused_ && norms_in_projections(1))
    out += rope_in_qkv(1) ? "; decode step fused: each RMSNorm in the next GEMV's prologue, RoPE and the cache write in "
                            "the qkv GEMV's epilogue (no norm or RoPE kernels)"
                          : "; decode step fused: each RMSNorm in the next GEMV's prologue (no norm kernels; RoPE's "
                            "own kernel: a window or head layout the split-KV kernel lacks)";
  else if (fused_)
    out += fp8_ ? "; ':fused' asked, but the GEMV's norm prologue is bf16 only: norm kernels ran"
                : "; ':fused' asked, but cuBLASLt runs a projection the norm would fold into: norm kernels ran";
  if (fused_ && norms_in_projections(1) && !final_norm_in_head(1))
    out += "; the final norm's own kernel (cuBLASLt was timed faster on the LM head with it)";
  if (c.qkv_bias) out += rope_in_qkv(1) ? "; q/k/v biases in the qkv GEMV's epilogue" : "; q/k/v biases in the RoPE kernel";
  if (c.o_bias) out += "; o bias added after o_proj";
  if (c.mlp_bias) out += "; MLP biases: gate/up in the SwiGLU kernel (not the GEMV's epilogue), down added after";
  return out;
}

bool CudaDecoder::rope_in_qkv(std::int64_t per_seq) const {
  if (!norms_in_projections(per_seq) || !split_decode_) return false;  // the split kernel reads q in bf16
  for (std::int64_t l = 0; l < layers_; ++l)
    if (window_cuts(l)) return false;  // the plain attention kernel reads the fp32 qkv
  return true;
}

std::string CudaDecoder::implementation_label() const {
  return fmt::format("cuBLASLt + rooftop, {}{}{}", decode_launch_ == Launch::graph ? "graph" : "eager",
                     norms_in_projections(1) ? ", fused" : "", group_ ? fmt::format(", tp{}", group_->tp()) : "");
}

bool CudaDecoder::fused_prefill(std::int64_t per_seq) const { return fused_prefill_ok_ && per_seq > 1 && length_ == 0; }

bool CudaDecoder::window_cuts(std::int64_t layer) const {
  const std::int64_t w = w_.config.window(layer);
  return w > 0 && w < max_context_;
}

void CudaDecoder::queue_attention(std::int64_t layer, std::int64_t per_seq, const void* k, const void* v) {
  const auto& c = w_.config;
  const auto* step = step_.as<std::int32_t>();
  if (window_cuts(layer)) {
    kernels::attention(qkv_.as<float>(), k, v, attn_.get(), batch_, per_seq, step, c.heads, c.kv_heads, c.head_dim, cache_,
                       c.window(layer));
  } else if (per_seq == 1 && split_decode_) {
    attention::DecodeArgs a{};
    a.dtype = Dtype::bf16;
    a.b = batch_;
    a.hq = c.heads;
    a.hkv = c.kv_heads;
    a.skv = max_context_;       // the bound the splits were chosen for
    a.skv_on_device = step + 1;  // the keys attended: the cache's length after this step
    a.capacity = cache_.capacity;
    a.block = cache_.page;
    a.block_table = cache_.block_table;
    a.d = c.head_dim;
    a.q = q16_.get();
    a.k = k;
    a.v = v;
    a.o = attn_.get();
    a.partial = decode_workspace_.as<float>();
    a.splits = decode_splits_;
    a.overlap_launch = true;  // between the qkv GEMV (or RoPE) and the o_proj GEMV, which overlap their neighbours
    attention::launch_decode(a);
  } else if (fused_prefill(per_seq)) {
    attention::PrefillArgs a{};
    a.dtype = Dtype::bf16;
    a.b = batch_;
    a.hq = c.heads;
    a.hkv = c.kv_heads;
    a.s = per_seq;
    a.d = c.head_dim;
    a.causal = true;
    a.q = q16_.get();
    // A contiguous cache is read in place; a paged one's rows were also written contiguously.
    a.k = cache_.page ? k_rows_.get() : k;
    a.v = cache_.page ? v_rows_.get() : v;
    a.o = attn_.get();
    a.kv_capacity = cache_.page ? 0 : cache_.capacity;
    a.o_token_major = true;
    attention::launch_prefill(a, prefill_config_);
  } else {
    kernels::attention(qkv_.as<float>(), k, v, attn_.get(), batch_, per_seq, step, c.heads, c.kv_heads, c.head_dim,
                       cache_);
  }
}

void CudaDecoder::queue_forward(std::int64_t per_seq) {
  const auto& c = w_.config;
  const std::int64_t rows = batch_ * per_seq, hidden = c.hidden, d = c.head_dim;
  const float eps = static_cast<float>(c.rms_eps);
  const std::size_t cache_layer = static_cast<std::size_t>(batch_ * c.kv_heads * cache_.capacity * d) * 2;
  const auto* step = step_.as<std::int32_t>();
  const bool fused_q = (per_seq == 1 && split_decode_) || fused_prefill(per_seq);  // q in bf16 for the fused kernels
  const bool fold = norms_in_projections(per_seq);  // the fused step: each RMSNorm in the next GEMV
  const bool rope_epilogue = rope_in_qkv(per_seq);  // and RoPE with the cache write in the qkv GEMV
  using kernels::GemvEpilogue;
  CudaStageTimer* timer = recorder_ ? stage_timer_.get() : nullptr;
  std::optional<GpuStage> stage;
  stage.emplace(timer, "embedding", -1);
  kernels::embed(step + 2, embedding_.get(), h_.as<float>(), rows, hidden);
  stage.reset();
  for (std::int64_t l = 0; l < layers_; ++l) {
    auto& L = layer_weights_[static_cast<std::size_t>(l)];
    const auto& S = w_.layers[static_cast<std::size_t>(l)];  // its fp8 scales
    const int li = static_cast<int>(l);
    const GpuStage layer(timer, "layer", li);
    char* kc = static_cast<char*>(k_cache_.get()) + static_cast<std::size_t>(l) * cache_layer;
    char* vc = static_cast<char*>(v_cache_.get()) + static_cast<std::size_t>(l) * cache_layer;
    const kernels::GemvNorm attn_norm{h_.as<float>(), L.attn_norm.as<float>(), eps, hidden};
    if (!fold) {
      stage.emplace(timer, "attn_norm", li);
      kernels::rms_norm(h_.as<float>(), L.attn_norm.as<float>(), xn_.get(), rows, 1, 0, hidden, eps, inverse_of(S.qkv_scale));
    }
    stage.emplace(timer, "qkv", li);
    if (rope_epilogue) {  // q to q16_, k and v into the cache: no fp32 qkv, no RoPE kernel
      const kernels::GemvRope rope{rope_table_.as<float>(), step, L.qkv_bias.as<float>(), q16_.get(), kc, vc,
                                   c.heads, c.kv_heads, d, cache_};
      project(qkv, rows, c.qkv_width(), hidden, xn_.get(), L.qkv.get(), nullptr, GemvEpilogue::rope_cache, S.qkv_scale,
              0, &attn_norm, &rope);
    } else {
      project(qkv, rows, c.qkv_width(), hidden, xn_.get(), L.qkv.get(), qkv_.get(), GemvEpilogue::store, S.qkv_scale, 0,
              fold ? &attn_norm : nullptr);
      stage.emplace(timer, "rope", li);
      void* const kv_rows[2] = {k_rows_.get(), v_rows_.get()};
      kernels::rope_and_cache(qkv_.as<float>(), kc, vc, fused_q ? q16_.get() : nullptr, rope_table_.as<float>(), batch_,
                              per_seq, step, c.heads, c.kv_heads, d, cache_,
                              cache_.page && fused_prefill(per_seq) ? kv_rows : nullptr, L.qkv_bias.as<float>());
    }
    stage.emplace(timer, "attention", li);
    queue_attention(l, per_seq, kc, vc);
    stage.emplace(timer, "o_proj", li);
    if (fp8_) kernels::quantize_e4m3(attn_.get(), x8_.get(), rows * c.heads * d, inverse_of(S.o_scale));
    project(o_proj, rows, hidden, c.heads * d, fp8_ ? x8_.get() : attn_.get(), L.o.get(), h_.get(),
            residual_epilogue(), S.o_scale);  // the residual (rank 0's, where tensor parallel)
    if (group_) {
      stage.emplace(timer, "o_proj_all_reduce", li);
      all_reduce_hidden(rows, L.gate_up);
    }
    if (L.o_bias.get()) kernels::add_bias(h_.as<float>(), L.o_bias.as<float>(), rows, hidden);
    const kernels::GemvNorm mlp_norm{h_.as<float>(), L.mlp_norm.as<float>(), eps, hidden};
    if (!fold) {
      stage.emplace(timer, "mlp_norm", li);
      kernels::rms_norm(h_.as<float>(), L.mlp_norm.as<float>(), xn_.get(), rows, 1, 0, hidden, eps,
                        inverse_of(S.gate_up_scale));
    }
    if (swiglu_in_gate_up(per_seq)) {
      stage.emplace(timer, "gate_up", li);  // with SwiGLU in its epilogue
      project(gate_up, rows, 2 * c.intermediate, hidden, xn_.get(), L.gate_up.get(), act_.get(), GemvEpilogue::swiglu,
              S.gate_up_scale, inverse_of(S.down_scale), fold ? &mlp_norm : nullptr);
    } else {
      stage.emplace(timer, "gate_up", li);
      matmul(rows, 2 * c.intermediate, hidden).execute_on(xn_.get(), L.gate_up.get(), gate_up_.get(), alpha_of(S.gate_up_scale));
      stage.emplace(timer, "swiglu", li);
      kernels::swiglu(gate_up_.as<float>(), act_.get(), rows, c.intermediate, inverse_of(S.down_scale),
                      L.gate_up_bias.as<float>());
    }
    stage.emplace(timer, "down", li);
    project(down, rows, hidden, c.intermediate, act_.get(), L.down.get(), h_.get(), residual_epilogue(),
            S.down_scale);  // the residual (rank 0's, where tensor parallel)
    if (group_) {
      stage.emplace(timer, "down_all_reduce", li);
      all_reduce_hidden(rows, l + 1 < layers_ ? layer_weights_[static_cast<std::size_t>(l + 1)].qkv
                              : head_.get()   ? head_
                                              : embedding_);
    }
    if (L.down_bias.get()) kernels::add_bias(h_.as<float>(), L.down_bias.as<float>(), rows, hidden);
    stage.reset();
  }
  // The last position of each sequence: per_seq rows apart.
  const kernels::GemvNorm final_norm{h_.as<float>() + (per_seq - 1) * hidden, final_norm_.as<float>(), eps, per_seq * hidden};
  const bool fold_final = final_norm_in_head(per_seq);
  if (!fold_final) {
    stage.emplace(timer, "final_norm", -1);
    kernels::rms_norm(h_.as<float>(), final_norm_.as<float>(), xn_.get(), batch_, per_seq, per_seq - 1, hidden, eps,
                      inverse_of(w_.head_scale));
  }
  stage.emplace(timer, "lm_head", -1);
  project(lm_head, batch_, c.vocab, hidden, xn_.get(), head_.get() ? head_.get() : embedding_.get(), logits_.get(),
          GemvEpilogue::store, w_.head_scale, 0, fold_final ? &final_norm : nullptr);
  stage.emplace(timer, "sampling", -1);
  kernels::argmax(logits_.as<float>(), next_.as<std::int32_t>(), batch_, c.vocab, argmax_workspace_.get());
  if (group_) reduce_argmax(batch_);
}

void CudaDecoder::forward(std::span<const std::int32_t> tokens, std::int64_t per_seq, std::span<std::int32_t> next) {
  if (length_ + per_seq > max_context_) throw std::logic_error("the KV cache is full");
  const std::int64_t rows = batch_ * per_seq;
  ensure_rows(rows);
  const bool replay = per_seq == 1 && decode_launch_ == Launch::graph && !recorder_;
  if (replay) ensure_decode_graph();  // held since prepare_rows, unless a larger forward moved the buffers since
  auto* staged = static_cast<std::int32_t*>(step_host_->get());
  staged[0] = static_cast<std::int32_t>(length_);
  staged[1] = static_cast<std::int32_t>(length_ + per_seq);
  std::memcpy(staged + 2, tokens.data(), static_cast<std::size_t>(rows) * 4);
  CudaStageTimer* timer = recorder_ ? stage_timer_.get() : nullptr;
  if (timer) timer->start_forward(*recorder_);
  const bool profiled = per_seq == 1 && profile_this_step();
  if (profiled) {
    fmt::print(stderr, "rooftop: profiling decode step {} ({} layers, batch {}, {}, context {})\n",
               std::getenv("ROOFTOP_PROFILE_DECODE_STEP"), layers_, batch_, implementation_label(), length_);
    ROOFTOP_GPU_CHECK(cudaProfilerStart());
  }
  std::optional<GpuStage> whole(std::in_place, timer, "forward", -1);
  ROOFTOP_GPU_CHECK(cudaMemcpyAsync(step_.get(), staged, static_cast<std::size_t>(2 + rows) * 4, cudaMemcpyHostToDevice,
                                    gpu::stream()));
  if (replay) decode_graph_.launch();
  else queue_forward(per_seq);
  ROOFTOP_GPU_CHECK(cudaMemcpyAsync(next_host_->get(), next_.get(), static_cast<std::size_t>(batch_) * 4,
                                    cudaMemcpyDeviceToHost, gpu::stream()));
  whole.reset();
  if (timer) timer->finish_forward(*recorder_);
  wait_for_step();
  if (profiled) ROOFTOP_GPU_CHECK(cudaProfilerStop());
  std::memcpy(next.data(), next_host_->get(), static_cast<std::size_t>(batch_) * 4);
  length_ += per_seq;
}

}  // namespace rooftop::inference
