#include "suites/inference/cpu_decoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <dnnl.hpp>
#include <limits>
#include <optional>

#include "harness/bf16.hpp"
#include "harness/errors.hpp"
#include "harness/random_fill.hpp"
#include "harness/stage_trace.hpp"
#include "devices/cpu/cpu_gemv.hpp"

namespace rooftop::inference {
namespace {

// Rows up to which a projection may run as our GEMV (a decode step's batch).
constexpr std::int64_t kGemvRows = 8;

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

inline float load(Dtype d, const void* base, std::size_t i) {
  return d == Dtype::bf16 ? bf16_to_float(static_cast<const std::uint16_t*>(base)[i]) : static_cast<const float*>(base)[i];
}
inline void store(Dtype d, void* base, std::size_t i, float v) {
  if (d == Dtype::bf16) static_cast<std::uint16_t*>(base)[i] = float_to_bf16(v);
  else static_cast<float*>(base)[i] = v;
}

// Each of `rows` rows of y (bias.size() values) plus the bias; none when empty.
void add_bias(float* y, std::int64_t rows, const std::vector<float>& bias) {
  if (bias.empty()) return;
  const auto n = static_cast<std::int64_t>(bias.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t i = 0; i < n; ++i) y[r * n + i] += bias[static_cast<std::size_t>(i)];
}

}  // namespace

struct CpuDecoder::Engine {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

// y[M, N] (fp32) = x[M, K] (dtype) x W^T, W [N, K] in dtype: oneDNN reads W as the
// transposed B, in place (no copy of the weights per M).
struct CpuDecoder::Linear {
  dnnl::matmul matmul;
  dnnl::memory::desc x_md, y_md;
  dnnl::memory weights;
  std::string implementation;
  const void* w = nullptr;
  std::int64_t m = 0, n = 0, k = 0;
  bool gemv = false;  // our GEMV (devices/cpu/cpu_gemv.cpp) measured faster than oneDNN for these few rows
  bool no_onednn = false;  // oneDNN has no matmul of this dtype here: the GEMV for every row count
};


CpuDecoder::CpuDecoder(const DecoderWeights& w, std::int64_t batch, std::int64_t max_context, std::int64_t layers,
                       std::shared_ptr<TensorParallelGroup> group)
    : group_(group && group->tp() > 1 ? std::move(group) : nullptr), slice_(decoder_slice(w, group_ ? group_->tp() : 1, group_ ? group_->rank() : 0)),
      shard_(decoder_shard(w, slice_, layers)), model_kv_heads_(w.model_config().kv_heads),
      model_vocab_(w.model_config().vocab),
      w_(shard_ ? *shard_ : w), batch_(batch), max_context_(max_context),
      layers_(layers < 0 ? static_cast<std::int64_t>(w.layers.size()) : std::min<std::int64_t>(layers, static_cast<std::int64_t>(w.layers.size()))),
      blocks_(batch), page_(max_context), engine_(std::make_unique<Engine>()),
      rope_frequencies_(w.config.rope_inverse_frequencies()) {
  if (w.dtype != Dtype::fp32 && w.dtype != Dtype::bf16)
    throw PointSkipped(fmt::format("the CPU decoder runs fp32 and bf16, not {} (fp8 weights are the CUDA backend's)",
                                   dtype_name(w.dtype)));
  const auto& c = w_.config;
  const std::size_t elem = input_size(w.dtype);
  const auto cache = static_cast<std::size_t>(layers_ * blocks_ * c.kv_heads * page_ * c.head_dim);
  k_cache_.assign(cache * elem, 0);
  v_cache_.assign(cache * elem, 0);
  logits_.assign(static_cast<std::size_t>(batch * c.vocab), 0.0f);
  own_blocks_.resize(static_cast<std::size_t>(batch));
  for (std::int64_t b = 0; b < batch; ++b) own_blocks_[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(b);
  fill_rope_table();
  // The decode step's matmuls now: an unsupported dtype is found, and the GEMV chosen,
  // before anything is timed.
  prepare_rows(batch);
}

CpuDecoder::CpuDecoder(const DecoderWeights& w, PagedCache cache, std::int64_t max_context, std::int64_t layers)
    : model_kv_heads_(w.model_config().kv_heads), model_vocab_(w.model_config().vocab), w_(w), batch_(1),
      max_context_(max_context),
      layers_(layers < 0 ? static_cast<std::int64_t>(w.layers.size()) : std::min<std::int64_t>(layers, static_cast<std::int64_t>(w.layers.size()))),
      blocks_(cache.blocks), page_(cache.page), engine_(std::make_unique<Engine>()),
      rope_frequencies_(w.config.rope_inverse_frequencies()) {
  if (w.dtype != Dtype::fp32 && w.dtype != Dtype::bf16)
    throw PointSkipped(fmt::format("the CPU decoder runs fp32 and bf16, not {} (fp8 weights are the CUDA backend's)",
                                   dtype_name(w.dtype)));
  if (cache.blocks <= 0 || cache.page <= 0) throw std::logic_error("a paged cache needs blocks and a page size");
  const auto& c = w_.config;
  const auto elements = static_cast<std::size_t>(layers_ * blocks_ * c.kv_heads * page_ * c.head_dim);
  k_cache_.assign(elements * input_size(w.dtype), 0);
  v_cache_.assign(elements * input_size(w.dtype), 0);
  fill_rope_table();
  prepare_rows(1);
}

// The rotary angles of every position, shared by every head, layer and sequence.
void CpuDecoder::fill_rope_table() {
  const std::int64_t d = w_.config.head_dim;
  rope_.resize(static_cast<std::size_t>(max_context_ * d));
  const double amplitude = w_.config.rope_amplitude();  // yarn's attention factor
  for (std::int64_t p = 0; p < max_context_; ++p)
    for (std::int64_t i = 0; i < d / 2; ++i) {
      const double angle = static_cast<double>(p) * rope_frequencies_[static_cast<std::size_t>(i)];
      rope_[static_cast<std::size_t>(p * d + i)] = static_cast<float>(amplitude * std::cos(angle));
      rope_[static_cast<std::size_t>(p * d + d / 2 + i)] = static_cast<float>(amplitude * std::sin(angle));
    }
}

std::int64_t CpuDecoder::matmul_rows(std::int64_t rows) const {
  if (!own_blocks_.empty() || rows <= kGemvRows) return rows;  // own_blocks_: the uniform batch
  return (rows + 15) / 16 * 16;
}

void CpuDecoder::prepare_steps(std::int64_t token_budget, std::int64_t max_sequences) {
  const auto& c = w_.config;
  for (std::int64_t rows = 1; rows <= token_budget; rows = matmul_rows(rows) + 1) prepare_rows(matmul_rows(rows));
  for (std::int64_t rows = 1; rows <= max_sequences; rows = matmul_rows(rows) + 1)
    linear(w_.head(), matmul_rows(rows), c.vocab, c.hidden);
}

std::size_t CpuDecoder::cache_at(std::int64_t layer, std::int64_t block, std::int64_t kv_head, std::int64_t slot) const {
  return static_cast<std::size_t>((((layer * blocks_ + block) * w_.config.kv_heads + kv_head) * page_ + slot) * w_.config.head_dim);
}

void CpuDecoder::prepare_rows(std::int64_t rows) {
  const auto& c = w_.config;
  for (std::int64_t l = 0; l < layers_; ++l) {
    const auto& L = w_.layers[static_cast<std::size_t>(l)];
    linear(L.qkv.data(), rows, c.qkv_width(), c.hidden);
    linear(L.o.data(), rows, c.hidden, c.heads * c.head_dim);
    linear(L.gate_up.data(), rows, 2 * c.intermediate, c.hidden);
    linear(L.down.data(), rows, c.hidden, c.intermediate);
  }
  linear(w_.head(), batch_, c.vocab, c.hidden);
}

CpuDecoder::~CpuDecoder() = default;

CpuDecoder::Linear& CpuDecoder::linear(const void* weight, std::int64_t m, std::int64_t n, std::int64_t k) {
  auto& slot = linears_[{weight, m}];
  if (slot) return *slot;
  const dt t = w_.dtype == Dtype::bf16 ? dt::bf16 : dt::f32;
  auto l = std::make_unique<Linear>();
  l->x_md = dnnl::memory::desc({m, k}, t, tag::ab);
  const dnnl::memory::desc w_md({k, n}, t, tag::ba);
  l->y_md = dnnl::memory::desc({m, n}, dt::f32, tag::ab);
  l->w = weight;
  l->m = m;
  l->n = n;
  l->k = k;
  try {
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(l->x_md, w_md, l->y_md), engine_->engine);
    l->implementation = pd.impl_info_str();
    l->matmul = dnnl::matmul(pd);
  } catch (const dnnl::error& e) {
    // oneDNN 2.6 has bf16 matmuls from AVX-512 up: below it (AVX2) every matmul of the
    // step is our GEMV, bf16 weights widened in registers and fp32 FMAs.
    if (w_.dtype != Dtype::bf16)
      throw PointSkipped(fmt::format("oneDNN has no {} matmul on this CPU ({})", dtype_name(w_.dtype), e.what()));
    l->gemv = l->no_onednn = true;
    slot = std::move(l);
    return *slot;
  }
  l->weights = dnnl::memory(w_md, engine_->engine, const_cast<void*>(weight));
  // A decode step's few rows: whichever of oneDNN and our GEMV runs this shape faster here,
  // timed once on scratch data (the time does not depend on the values).
  if (m <= kGemvRows) {
    std::vector<std::uint8_t> x(static_cast<std::size_t>(m * k) * input_size(w_.dtype), 0);
    std::vector<float> y(static_cast<std::size_t>(m * n));
    l->gemv = cpu::gemv_is_faster([&] { cpu::gemv_rows(w_.dtype, m, n, k, x.data(), weight, y.data()); },
                                  [&] { execute(*l, x.data(), y.data()); });
  }
  slot = std::move(l);
  return *slot;
}

void CpuDecoder::execute(Linear& l, const void* x, float* y) {
  if (l.gemv) return cpu::gemv_rows(w_.dtype, l.m, l.n, l.k, x, l.w, y);
  l.matmul.execute(engine_->stream, {{DNNL_ARG_SRC, dnnl::memory(l.x_md, engine_->engine, const_cast<void*>(x))},
                                     {DNNL_ARG_WEIGHTS, l.weights},
                                     {DNNL_ARG_DST, dnnl::memory(l.y_md, engine_->engine, y)}});
  engine_->stream.wait();
}

std::string CpuDecoder::implementation() const {
  std::string onednn;
  int gemv = 0, total = 0;
  bool no_onednn = false;
  for (const auto& [key, l] : linears_) {
    if (onednn.empty()) onednn = l->implementation;
    gemv += l->gemv ? 1 : 0;
    no_onednn = no_onednn || l->no_onednn;
    ++total;
  }
  const std::string matmuls =
      no_onednn ? fmt::format("rooftop's GEMV for every matmul, bf16 weights widened to fp32 in registers ({}; "
                              "oneDNN has no bf16 matmul on this CPU: a generic path, not the machine's bf16 roof)",
                              cpu::gemv_isa_name())
                : fmt::format("oneDNN {} matmuls{}", onednn,
                              gemv ? fmt::format(" (rooftop's GEMV where faster: {} of {} shapes)", gemv, total) : "");
  return fmt::format("{}; rooftop CPU attention, RMSNorm, RoPE, SwiGLU{}", matmuls,
                     group_ ? fmt::format("; tensor parallel over {} ranks ({}), fp32 all-reduces", group_->tp(),
                                          group_->transport().name())
                            : "");
}

std::string CpuDecoder::implementation_label() const {
  return group_ ? fmt::format("oneDNN + rooftop, tp{}", group_->tp()) : "oneDNN + rooftop";
}

const std::vector<float>& CpuDecoder::logits() {
  if (!group_ || gathered_) return group_ ? all_logits_ : logits_;
  // Each rank's slice padded to the largest (the first rank's), gathered, then laid out by vocabulary.
  const int tp = group_->tp();
  const std::int64_t local = w_.config.vocab, widest = even_split(model_vocab_, tp, 0).count;
  padded_.assign(static_cast<std::size_t>(sampled_ * widest), 0.0f);
  for (std::int64_t b = 0; b < sampled_; ++b)
    std::copy_n(logits_.data() + b * local, local, padded_.data() + b * widest);
  std::vector<float> gathered(padded_.size() * static_cast<std::size_t>(tp));
  group_->all_gather(padded_.data(), padded_.size(), gathered.data());
  all_logits_.assign(static_cast<std::size_t>(sampled_ * model_vocab_), 0.0f);
  for (int q = 0; q < tp; ++q) {
    const IndexRange part = even_split(model_vocab_, tp, q);
    for (std::int64_t b = 0; b < sampled_; ++b)
      std::copy_n(gathered.data() + (q * sampled_ + b) * widest, part.count, all_logits_.data() + b * model_vocab_ + part.begin);
  }
  gathered_ = true;
  return all_logits_;
}

void CpuDecoder::set_length(std::int64_t length) {
  if (length < 0 || length > max_context_) throw std::logic_error("cache length out of range");
  length_ = length;
}

void CpuDecoder::fill_cache_randomly(std::int64_t length, std::uint64_t seed) {
  set_length(length);
  // Keys and values of unit scale, as RMSNorm'd activations through the projections give;
  // each element drawn at its index in the whole model's cache, so that a tensor-parallel
  // rank's kv heads hold what one rank's would.
  const std::size_t n = k_cache_.size() / input_size(w_.dtype);
  const auto head = static_cast<std::size_t>(page_ * w_.config.head_dim);
  const auto kv = static_cast<std::size_t>(w_.config.kv_heads), kv_all = static_cast<std::size_t>(model_kv_heads_),
             first = static_cast<std::size_t>(slice_.kv_heads.begin);
  for (auto* cache : {&k_cache_, &v_cache_}) {
    const std::uint64_t s = seed++;
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t block_head = i / head, g = block_head % kv;
      const std::size_t global = ((block_head / kv) * kv_all + first + g) * head + i % head;
      store(w_.dtype, cache->data(), i, static_cast<float>(uniform_at(s, global, -1.7f, 1.7f)));
    }
  }
}

// Causal GQA attention of the new tokens (their q in qkv, their k and v already in the
// cache) over every earlier position of their sequence (or the layer's sliding window),
// block by block: online softmax in fp32, written in the dtype.
void CpuDecoder::attention(std::int64_t layer, std::span<const SequenceChunk> chunks, const float* qkv, void* out) {
  const auto& c = w_.config;
  const std::int64_t d = c.head_dim, group = c.heads / c.kv_heads, width = c.qkv_width();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const Dtype dtype = w_.dtype;
  const auto rows = static_cast<std::int64_t>(row_pos_.size());
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (std::int64_t row = 0; row < rows; ++row)
    for (std::int64_t h = 0; h < c.heads; ++h) {
      const std::int64_t g = h / group, last = row_pos_[static_cast<std::size_t>(row)];
      const auto& blocks = chunks[static_cast<std::size_t>(row_chunk_[static_cast<std::size_t>(row)])].blocks;
      const float* q = qkv + row * width + h * d;
      std::vector<float> acc(static_cast<std::size_t>(d), 0.0f);
      float running_max = -std::numeric_limits<float>::infinity(), sum = 0;
      for (std::int64_t j = c.first_attended(layer, last); j <= last;) {
        const std::int64_t block = j / page_, end = std::min(last, (block + 1) * page_ - 1);
        const std::size_t base = cache_at(layer, blocks[static_cast<std::size_t>(block)], g, 0);
        for (; j <= end; ++j) {
          const std::size_t kv = base + static_cast<std::size_t>((j - block * page_) * d);
          float s = 0;
#pragma omp simd reduction(+ : s)
          for (std::int64_t i = 0; i < d; ++i) s += q[i] * load(dtype, k_cache_.data(), kv + static_cast<std::size_t>(i));
          s *= scale;
          const float new_max = std::max(running_max, s);
          const float correction = std::exp(running_max - new_max), p = std::exp(s - new_max);
          sum = sum * correction + p;
#pragma omp simd
          for (std::int64_t i = 0; i < d; ++i)
            acc[static_cast<std::size_t>(i)] = acc[static_cast<std::size_t>(i)] * correction +
                                               p * load(dtype, v_cache_.data(), kv + static_cast<std::size_t>(i));
          running_max = new_max;
        }
      }
      for (std::int64_t i = 0; i < d; ++i)
        store(dtype, out, static_cast<std::size_t>(row * c.heads * d + h * d + i), acc[static_cast<std::size_t>(i)] / sum);
    }
}

void CpuDecoder::forward(std::span<const std::int32_t> tokens, std::int64_t per_seq, std::span<std::int32_t> next) {
  if (length_ + per_seq > max_context_) throw std::logic_error("the KV cache is full");
  chunks_.clear();
  for (std::int64_t b = 0; b < batch_; ++b)
    chunks_.push_back({length_, per_seq, std::span<const std::int32_t>(own_blocks_).subspan(static_cast<std::size_t>(b), 1), true});
  run_chunks(tokens, chunks_, next);
  length_ += per_seq;
}

void CpuDecoder::forward_chunks(std::span<const std::int32_t> tokens, std::span<const SequenceChunk> chunks,
                                std::span<std::int32_t> next) {
  std::size_t total = 0, sampled = 0;
  for (const auto& ch : chunks) {
    if (ch.tokens <= 0 || ch.start < 0 || ch.start + ch.tokens > max_context_)
      throw std::logic_error("a chunk beyond the decoder's context");
    if (static_cast<std::int64_t>(ch.blocks.size()) * page_ < ch.start + ch.tokens)
      throw std::logic_error("a chunk's positions beyond its block table");
    for (const auto b : ch.blocks)
      if (b < 0 || b >= blocks_) throw std::logic_error("a block table names a block outside the pool");
    total += static_cast<std::size_t>(ch.tokens);
    sampled += ch.sample ? 1 : 0;
  }
  if (tokens.size() != total || next.size() < sampled) throw std::logic_error("forward_chunks: token or output count");
  run_chunks(tokens, chunks, next);
}

void CpuDecoder::run_chunks(std::span<const std::int32_t> tokens, std::span<const SequenceChunk> chunks,
                            std::span<std::int32_t> next) {
  const auto& c = w_.config;
  const Dtype dtype = w_.dtype;
  row_pos_.clear();
  row_chunk_.clear();
  sample_rows_.clear();
  for (std::size_t ci = 0; ci < chunks.size(); ++ci) {
    for (std::int64_t t = 0; t < chunks[ci].tokens; ++t) {
      row_pos_.push_back(chunks[ci].start + t);
      row_chunk_.push_back(static_cast<std::int64_t>(ci));
    }
    if (chunks[ci].sample) sample_rows_.push_back(static_cast<std::int64_t>(row_pos_.size()) - 1);
  }
  const auto rows = static_cast<std::int64_t>(row_pos_.size()), sampled = static_cast<std::int64_t>(sample_rows_.size());
  // The matmuls' rows: a paged step's padded to its bucket (the rows past `rows` are
  // computed and ignored).
  const std::int64_t mm = matmul_rows(rows), mm_sampled = matmul_rows(sampled);
  const std::int64_t hidden = c.hidden, d = c.head_dim, width = c.qkv_width();
  const std::size_t elem = input_size(dtype);
  h_.resize(static_cast<std::size_t>(rows * hidden));
  qkv_.resize(static_cast<std::size_t>(mm * width));
  proj_.resize(static_cast<std::size_t>(mm * hidden));
  gate_up_.resize(static_cast<std::size_t>(mm * 2 * c.intermediate));
  xn_.resize(static_cast<std::size_t>(mm * hidden) * elem);
  attn_.resize(static_cast<std::size_t>(mm * c.heads * d) * elem);
  act_.resize(static_cast<std::size_t>(mm * c.intermediate) * elem);
  logits_.resize(static_cast<std::size_t>(mm_sampled * c.vocab));
  const auto run = [&](Linear& l, const void* x, float* y) { execute(l, x, y); };
  const float eps = static_cast<float>(c.rms_eps);
  // RMSNorm of `count` rows of h (all of them, or the rows `which` names) into the dtype buffer.
  const auto rms_norm = [&](const std::vector<float>& weight, std::int64_t count, const std::int64_t* which) {
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < count; ++r) {
      const float* x = h_.data() + (which ? which[r] : r) * hidden;
      float sq = 0;
#pragma omp simd reduction(+ : sq)
      for (std::int64_t i = 0; i < hidden; ++i) sq += x[i] * x[i];
      const float inv = 1.0f / std::sqrt(sq / static_cast<float>(hidden) + eps);
      for (std::int64_t i = 0; i < hidden; ++i)
        store(dtype, xn_.data(), static_cast<std::size_t>(r * hidden + i), x[i] * inv * weight[static_cast<std::size_t>(i)]);
    }
  };

  using Stage = StageRecorder::Scope;
  const Stage whole(recorder_, "forward", -1);
  // Embedding rows.
  std::optional<Stage> stage;
  stage.emplace(recorder_, "embedding", -1);
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto token = static_cast<std::int64_t>(tokens[static_cast<std::size_t>(r)]);
    for (std::int64_t i = 0; i < hidden; ++i)
      h_[static_cast<std::size_t>(r * hidden + i)] = load(dtype, w_.embedding.data(), static_cast<std::size_t>(token * hidden + i));
  }
  stage.reset();
  for (std::int64_t l = 0; l < layers_; ++l) {
    const auto& L = w_.layers[static_cast<std::size_t>(l)];
    const int li = static_cast<int>(l);
    const Stage layer(recorder_, "layer", li);
    stage.emplace(recorder_, "attn_norm", li);
    rms_norm(L.attn_norm, rows, nullptr);
    stage.emplace(recorder_, "qkv", li);
    run(linear(L.qkv.data(), mm, width, hidden), xn_.data(), qkv_.data());
    add_bias(qkv_.data(), rows, L.qkv_bias);
    stage.emplace(recorder_, "rope", li);
    // RoPE (rotate-half pairs i, i + d/2) on q and k, then k and v into the cache.
#pragma omp parallel for schedule(static)
    for (std::int64_t row = 0; row < rows; ++row) {
      const std::int64_t pos = row_pos_[static_cast<std::size_t>(row)];
      const auto& blocks = chunks[static_cast<std::size_t>(row_chunk_[static_cast<std::size_t>(row)])].blocks;
      float* q = qkv_.data() + row * width;
      const float* cs = rope_.data() + pos * d;  // cos, then sin, of each pair at this position
      for (std::int64_t head = 0; head < c.heads + c.kv_heads; ++head) {
        float* x = q + head * d;
        for (std::int64_t i = 0; i < d / 2; ++i) {
          const float a = x[i], bb = x[i + d / 2];
          x[i] = a * cs[i] - bb * cs[d / 2 + i];
          x[i + d / 2] = bb * cs[i] + a * cs[d / 2 + i];
        }
      }
      const std::int64_t block = blocks[static_cast<std::size_t>(pos / page_)];
      for (std::int64_t g = 0; g < c.kv_heads; ++g) {
        const std::size_t at = cache_at(l, block, g, pos % page_);
        const float* k = q + (c.heads + g) * d;
        const float* v = q + (c.heads + c.kv_heads + g) * d;
        for (std::int64_t i = 0; i < d; ++i) {
          store(dtype, k_cache_.data(), at + static_cast<std::size_t>(i), k[i]);
          store(dtype, v_cache_.data(), at + static_cast<std::size_t>(i), v[i]);
        }
      }
    }
    stage.emplace(recorder_, "attention", li);
    attention(l, chunks, qkv_.data(), attn_.data());
    stage.emplace(recorder_, "o_proj", li);
    run(linear(L.o.data(), mm, hidden, c.heads * d), attn_.data(), proj_.data());
    if (group_) {  // each rank's heads' share of o_proj, summed
      stage.emplace(recorder_, "o_proj_all_reduce", li);
      group_->all_reduce(proj_.data(), static_cast<std::size_t>(rows * hidden));
    }
    add_bias(proj_.data(), rows, L.o_bias);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows * hidden; ++i) h_[static_cast<std::size_t>(i)] += proj_[static_cast<std::size_t>(i)];
    stage.emplace(recorder_, "mlp_norm", li);
    rms_norm(L.mlp_norm, rows, nullptr);
    stage.emplace(recorder_, "gate_up", li);
    run(linear(L.gate_up.data(), mm, 2 * c.intermediate, hidden), xn_.data(), gate_up_.data());
    add_bias(gate_up_.data(), rows, L.gate_up_bias);
    stage.emplace(recorder_, "swiglu", li);
    const std::int64_t inter = c.intermediate;
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t i = 0; i < inter; ++i) {
        const float g = gate_up_[static_cast<std::size_t>(r * 2 * inter + i)];
        const float u = gate_up_[static_cast<std::size_t>(r * 2 * inter + inter + i)];
        store(dtype, act_.data(), static_cast<std::size_t>(r * inter + i), g / (1.0f + std::exp(-g)) * u);
      }
    stage.emplace(recorder_, "down", li);
    run(linear(L.down.data(), mm, hidden, inter), act_.data(), proj_.data());
    if (group_) {  // each rank's columns' share of down, summed
      stage.emplace(recorder_, "down_all_reduce", li);
      group_->all_reduce(proj_.data(), static_cast<std::size_t>(rows * hidden));
    }
    add_bias(proj_.data(), rows, L.down_bias);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows * hidden; ++i) h_[static_cast<std::size_t>(i)] += proj_[static_cast<std::size_t>(i)];
    stage.reset();
  }
  stage.reset();
  if (sampled == 0) return;  // prefill chunks before their last: no logits
  // The last position of each sampled chunk: final norm, LM head, greedy token.
  stage.emplace(recorder_, "final_norm", -1);
  rms_norm(w_.final_norm, sampled, sample_rows_.data());
  stage.emplace(recorder_, "lm_head", -1);
  run(linear(w_.head(), mm_sampled, c.vocab, hidden), xn_.data(), logits_.data());
  stage.emplace(recorder_, "sampling", -1);
  sampled_ = sampled;
  gathered_ = false;
  if (group_) {  // each rank's best of its vocabulary slice, then the best of those
    best_value_.resize(static_cast<std::size_t>(sampled));
    best_index_.resize(static_cast<std::size_t>(sampled));
    for (std::int64_t b = 0; b < sampled; ++b) {
      const float* row = logits_.data() + b * c.vocab;
      const auto at = std::max_element(row, row + c.vocab) - row;
      best_value_[static_cast<std::size_t>(b)] = row[at];
      best_index_[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(slice_.vocab.begin + at);
    }
    group_->argmax(best_value_, best_index_, next.first(static_cast<std::size_t>(sampled)));
    return;
  }
  for (std::int64_t b = 0; b < sampled; ++b) {
    const float* row = logits_.data() + b * c.vocab;
    next[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(std::max_element(row, row + c.vocab) - row);
  }
}

}  // namespace rooftop::inference
