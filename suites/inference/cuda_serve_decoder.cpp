// The serve scenario's CUDA decoder: a ragged step over a paged cache.
#include "suites/inference/cuda_serve_decoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "harness/errors.hpp"
#include "suites/attention/attention_cuda_decode.cuh"
#include "suites/inference/cuda_decoder_kernels.cuh"
#include "suites/inference/cuda_serve_kernels.cuh"

namespace rooftop::inference {
namespace {

template <class T>
gpu::DeviceBuffer upload(const std::vector<T>& host) {
  if (host.empty()) return {};
  gpu::DeviceBuffer d(host.size() * sizeof(T));
  ROOFTOP_GPU_CHECK(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

gpu::DeviceBuffer upload_bytes(const std::uint8_t* data, std::size_t bytes) {
  gpu::DeviceBuffer d(bytes);
  ROOFTOP_GPU_CHECK(cudaMemcpy(d.get(), data, bytes, cudaMemcpyHostToDevice));
  return d;
}

template <class T>
void to_device(const gpu::DeviceBuffer& d, const std::vector<T>& host) {
  if (host.empty()) return;
  ROOFTOP_GPU_CHECK(cudaMemcpyAsync(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, gpu::stream()));
}

const float* or_null(const gpu::DeviceBuffer& b) { return b.bytes() ? b.as<float>() : nullptr; }

}  // namespace

CudaServeDecoder::CudaServeDecoder(const DecoderWeights& w, std::int64_t blocks, std::int64_t page, std::int64_t max_context,
                                   std::int64_t layers, bool graphs)
    : w_(w), blocks_(blocks), page_(page), max_context_(max_context),
      layers_(layers < 0 ? static_cast<std::int64_t>(w.layers.size())
                         : std::min<std::int64_t>(layers, static_cast<std::int64_t>(w.layers.size()))),
      graphs_(graphs) {
  if (w.dtype != Dtype::bf16)
    throw PointSkipped(fmt::format("the CUDA serve decoder runs bf16, not {}", dtype_name(w.dtype)));
  const auto& c = w.config;
  embedding_ = upload_bytes(w.embedding.data(), w.embedding.size());
  head_ = w.lm_head.empty() ? gpu::DeviceBuffer{} : upload_bytes(w.lm_head.data(), w.lm_head.size());
  final_norm_ = upload(w.final_norm);
  for (std::int64_t l = 0; l < layers_; ++l) {
    const auto& L = w.layers[static_cast<std::size_t>(l)];
    Layer d;
    d.attn_norm = upload(L.attn_norm);
    d.mlp_norm = upload(L.mlp_norm);
    d.qkv = upload(L.qkv);
    d.o = upload(L.o);
    d.gate_up = upload(L.gate_up);
    d.down = upload(L.down);
    d.qkv_bias = upload(L.qkv_bias);
    d.o_bias = upload(L.o_bias);
    d.gate_up_bias = upload(L.gate_up_bias);
    d.down_bias = upload(L.down_bias);
    layer_weights_.push_back(std::move(d));
  }
  // One block past the pool's: the scratch block a graph's padding rows write and read.
  const auto cache = static_cast<std::size_t>(layers_ * (blocks + 1) * c.kv_heads * page * c.head_dim) * 2;  // bf16
  k_cache_ = gpu::DeviceBuffer(cache);
  v_cache_ = gpu::DeviceBuffer(cache);
  rope_table_ = upload(kernels::rope_table(max_context, c.rope_inverse_frequencies(), c.rope_amplitude()));
  const std::int64_t group = c.heads / c.kv_heads;
  // The split kernel's paged reads take blocks of 16 or 32 positions.
  split_decode_ = (c.head_dim == 64 || c.head_dim == 128) && c.heads % c.kv_heads == 0 && group <= attention::kMaxDecodeGroup &&
                  (page == 16 || page == 32);
  graphs_ = graphs_ && split_decode_;  // a graph's decode rows are the split kernel's
  if (split_decode_) resident_blocks_ = attention::decode_resident_blocks(Dtype::bf16, c.head_dim, group);
  decode_table_width_ = (max_context + page - 1) / page;
  ensure_rows(1, 1, 1);
}

CudaServeDecoder::~CudaServeDecoder() = default;

gpu::VendorMatmul& CudaServeDecoder::matmul(std::int64_t m, std::int64_t n, std::int64_t k) {
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

void CudaServeDecoder::ensure_rows(std::int64_t rows, std::int64_t sampled, std::int64_t table_entries) {
  const auto& c = w_.config;
  rows = bucket(rows);
  sampled = bucket(sampled);
  if (rows > rows_) {
    const auto f32 = [&](std::int64_t per) { return gpu::DeviceBuffer(static_cast<std::size_t>(rows * per) * 4); };
    const auto b16 = [&](std::int64_t per) { return gpu::DeviceBuffer(static_cast<std::size_t>(rows * per) * 2); };
    tokens_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows) * 4);
    pos_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows) * 4);
    table_at_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows) * 4);
    h_ = f32(c.hidden);
    xn_ = b16(c.hidden);
    qkv_ = f32(c.qkv_width());
    attn_ = b16(c.heads * c.head_dim);
    q16_ = b16(c.heads * c.head_dim);
    decode_tables_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows * decode_table_width_) * 4);
    decode_keys_ = gpu::DeviceBuffer(static_cast<std::size_t>(rows) * 4);
    gate_up_ = f32(2 * c.intermediate);
    act_ = b16(c.intermediate);
    rows_ = rows;
    graphs_by_shape_.clear();  // they point at the buffers replaced here
  }
  if (sampled > sampled_cap_) {
    sample_rows_ = gpu::DeviceBuffer(static_cast<std::size_t>(sampled) * 4);
    h_sampled_ = gpu::DeviceBuffer(static_cast<std::size_t>(sampled * c.hidden) * 4);
    logits_ = gpu::DeviceBuffer(static_cast<std::size_t>(sampled * c.vocab) * 4);
    next_ = gpu::DeviceBuffer(static_cast<std::size_t>(sampled) * 4);
    argmax_workspace_ = gpu::DeviceBuffer(static_cast<std::size_t>(kernels::argmax_workspace_bytes(sampled)));
    ROOFTOP_GPU_CHECK(cudaMemset(argmax_workspace_.get(), 0, argmax_workspace_.bytes()));
    graphs_by_shape_.clear();
    // The xn_ rows the final norm writes: at least `sampled` of them.
    if (sampled > rows_) ensure_rows(sampled, 1, 1);
    sampled_cap_ = sampled;
  }
  if (table_entries > tables_cap_) {
    tables_ = gpu::DeviceBuffer(static_cast<std::size_t>(table_entries) * 4);
    tables_cap_ = table_entries;
    graphs_by_shape_.clear();
  }
}

void CudaServeDecoder::prepare_steps(std::int64_t token_budget, std::int64_t max_sequences) {
  const auto& c = w_.config;
  ensure_rows(token_budget, max_sequences, max_sequences * (max_context_ + page_ - 1) / page_);
  for (std::int64_t rows = 1; rows <= token_budget; rows = bucket(rows) + 1) {
    const auto m = bucket(rows);
    matmul(m, c.qkv_width(), c.hidden);
    matmul(m, c.hidden, c.heads * c.head_dim);
    matmul(m, 2 * c.intermediate, c.hidden);
    matmul(m, c.hidden, c.intermediate);
  }
  for (std::int64_t rows = 1; rows <= max_sequences; rows = bucket(rows) + 1) matmul(bucket(rows), c.vocab, c.hidden);
  if (split_decode_)  // the largest workspace a step of up to max_sequences decode rows (padded) can need
    for (std::int64_t rows = 1; rows <= bucket(max_sequences); ++rows)
      for (std::int64_t keys = keys_bucket(1);; keys = keys_bucket(keys + 1)) {
        ensure_decode_workspace(rows, attention::decode_splits(rows, c.kv_heads, keys, resident_blocks_));
        if (keys >= max_context_) break;
      }
  if (!graphs_) return;
  // Every decode-only step's graph, before the timing: each batch bucket at each keys bucket,
  // run once eagerly on the scratch block (the libraries' first-call set-up stays out of the
  // graph), then captured.
  max_graph_rows_ = bucket(max_sequences);
  for (std::int64_t rows = 1; rows <= max_sequences; rows = bucket(rows) + 1)
    for (std::int64_t keys = keys_bucket(1);; keys = keys_bucket(keys + 1)) {
      host_tokens_.clear();
      host_pos_.clear();
      host_table_at_.clear();
      host_tables_.clear();
      host_sample_rows_.clear();
      host_decode_tables_.clear();
      host_decode_keys_.clear();
      pad_to(bucket(rows));
      replay(bucket(rows), keys);
      if (keys >= max_context_) break;
    }
}

std::int64_t CudaServeDecoder::keys_bucket(std::int64_t keys) const {
  std::int64_t b = 256;
  while (b < keys) b *= 2;
  return std::min(b, max_context_);
}

void CudaServeDecoder::pad_to(std::int64_t rows) {
  // Padding rows: token 0 at position 0 of the scratch block (index blocks_), one key each.
  const auto scratch_at = static_cast<std::int32_t>(host_tables_.size());
  host_tables_.push_back(static_cast<std::int32_t>(blocks_));
  for (auto r = static_cast<std::int64_t>(host_pos_.size()); r < rows; ++r) {
    host_tokens_.push_back(0);
    host_pos_.push_back(0);
    host_table_at_.push_back(scratch_at);
    host_sample_rows_.push_back(static_cast<std::int32_t>(r));
    host_decode_keys_.push_back(1);
    host_decode_tables_.push_back(static_cast<std::int32_t>(blocks_));
    host_decode_tables_.resize(host_decode_tables_.size() + static_cast<std::size_t>(decode_table_width_ - 1), 0);
  }
  upload_step(host_tokens_);
}

void CudaServeDecoder::upload_step(std::span<const std::int32_t> tokens) {
  ensure_rows(static_cast<std::int64_t>(host_pos_.size()), std::max<std::int64_t>(static_cast<std::int64_t>(host_sample_rows_.size()), 1),
              static_cast<std::int64_t>(host_tables_.size()));
  ROOFTOP_GPU_CHECK(cudaMemcpyAsync(tokens_.get(), tokens.data(), tokens.size() * 4, cudaMemcpyHostToDevice, gpu::stream()));
  to_device(pos_, host_pos_);
  to_device(table_at_, host_table_at_);
  to_device(tables_, host_tables_);
  to_device(sample_rows_, host_sample_rows_);
  to_device(decode_tables_, host_decode_tables_);
  to_device(decode_keys_, host_decode_keys_);
}

void CudaServeDecoder::replay(std::int64_t rows, std::int64_t keys_bound) {
  const StepShape step{rows, rows, rows, keys_bound,
                       attention::decode_splits(rows, w_.config.kv_heads, keys_bound, resident_blocks_)};
  ensure_decode_workspace(step.rows, step.splits);  // also between replays: the tickets sit where the shape puts them
  auto& graph = graphs_by_shape_[{rows, keys_bound}];
  if (!graph) {
    queue_step(step);  // once eagerly, so the capture holds no first-call set-up
    ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
    graph = std::make_unique<gpu::CapturedGraph>();
    graph->capture([&] { queue_step(step); });
  }
  graph->launch();
}

void CudaServeDecoder::ensure_decode_workspace(std::int64_t rows, int splits) {
  const auto& c = w_.config;
  const auto floats = attention::decode_workspace_floats(rows, c.heads, c.kv_heads, c.head_dim, splits);
  if (static_cast<std::size_t>(floats) * 4 > decode_workspace_.bytes()) {
    decode_workspace_ = gpu::DeviceBuffer(static_cast<std::size_t>(floats) * 4);
    graphs_by_shape_.clear();  // they point at the workspace replaced here
    ROOFTOP_GPU_CHECK(cudaMemsetAsync(decode_workspace_.get(), 0, decode_workspace_.bytes(), gpu::stream()));
    workspace_rows_ = rows;
    workspace_splits_ = splits;
  }
  if (rows != workspace_rows_ || splits != workspace_splits_) {
    // The tickets sit after the partials, where they fall for this shape: another shape's
    // partials may have left values there. Each launch leaves its own tickets at zero.
    const auto partials = attention::decode_workspace_floats(rows, c.heads, c.kv_heads, c.head_dim, splits) - rows * c.heads;
    ROOFTOP_GPU_CHECK(cudaMemsetAsync(decode_workspace_.as<float>() + partials, 0, static_cast<std::size_t>(rows * c.heads) * 4,
                                      gpu::stream()));
    workspace_rows_ = rows;
    workspace_splits_ = splits;
  }
}

void CudaServeDecoder::queue_attention(std::int64_t layer, const StepShape& step, const void* kc, const void* vc) {
  const auto& c = w_.config;
  const kernels::RaggedRows where{pos_.as<std::int32_t>(), table_at_.as<std::int32_t>(), tables_.as<std::int32_t>(), page_};
  const std::int64_t window = c.window(layer) > 0 && c.window(layer) < max_context_ ? c.window(layer) : 0;
  const std::int64_t rows = step.rows, split_rows = window ? 0 : step.decode_rows;  // the split kernel attends every key: no window
  if (split_rows > 0) {
    attention::DecodeArgs a{};
    a.dtype = Dtype::bf16;
    a.b = split_rows;
    a.hq = c.heads;
    a.hkv = c.kv_heads;
    a.skv = step.keys_bound;  // the bound its splits were chosen for
    a.keys_per_sequence = decode_keys_.as<std::int32_t>();
    a.capacity = decode_table_width_ * page_;
    a.block = page_;
    a.block_table = decode_tables_.as<std::int32_t>();
    a.d = c.head_dim;
    a.q = q16_.get();
    a.k = kc;
    a.v = vc;
    a.o = attn_.get();
    a.partial = decode_workspace_.as<float>();
    a.splits = step.splits;
    attention::launch_decode(a);
  }
  if (rows > split_rows) {
    const std::int64_t r0 = split_rows, width = c.qkv_width();
    const kernels::RaggedRows rest{where.pos + r0, where.table_at + r0, where.tables, page_};
    kernels::ragged_attention(qkv_.as<float>() + r0 * width, kc, vc,
                              static_cast<char*>(attn_.get()) + static_cast<std::size_t>(r0 * c.heads * c.head_dim) * 2,
                              rows - r0, rest, c.heads, c.kv_heads, c.head_dim, window);
  }
}

void CudaServeDecoder::forward_chunks(std::span<const std::int32_t> tokens, std::span<const SequenceChunk> chunks,
                                      std::span<std::int32_t> next) {
  host_pos_.clear();
  host_table_at_.clear();
  host_tables_.clear();
  host_sample_rows_.clear();
  host_decode_tables_.clear();
  host_decode_keys_.clear();
  bool leading = true;  // the leading run of one-token chunks: the split kernel's rows
  for (const auto& ch : chunks) {
    if (ch.tokens <= 0 || ch.start < 0 || ch.start + ch.tokens > max_context_ ||
        static_cast<std::int64_t>(ch.blocks.size()) * page_ < ch.start + ch.tokens)
      throw std::logic_error("a chunk beyond the decoder's context or its block table");
    const auto at = static_cast<std::int32_t>(host_tables_.size());
    for (const auto b : ch.blocks) {
      if (b < 0 || b >= blocks_) throw std::logic_error("a block table names a block outside the pool");
      host_tables_.push_back(b);
    }
    for (std::int64_t t = 0; t < ch.tokens; ++t) {
      host_pos_.push_back(static_cast<std::int32_t>(ch.start + t));
      host_table_at_.push_back(at);
    }
    if (ch.sample) host_sample_rows_.push_back(static_cast<std::int32_t>(host_pos_.size() - 1));
    leading = leading && ch.tokens == 1 && split_decode_;
    if (leading) {
      host_decode_keys_.push_back(static_cast<std::int32_t>(ch.start + 1));
      const auto used = (ch.start + 1 + page_ - 1) / page_;  // the blocks its keys are in
      host_decode_tables_.insert(host_decode_tables_.end(), ch.blocks.begin(), ch.blocks.begin() + used);
      host_decode_tables_.resize(host_decode_tables_.size() + static_cast<std::size_t>(decode_table_width_ - used), 0);
    }
  }
  const auto rows = static_cast<std::int64_t>(host_pos_.size()), sampled = static_cast<std::int64_t>(host_sample_rows_.size());
  const auto decode_rows = static_cast<std::int64_t>(host_decode_keys_.size());
  if (static_cast<std::int64_t>(tokens.size()) != rows || static_cast<std::int64_t>(next.size()) < sampled)
    throw std::logic_error("forward_chunks: token or output count");
  const std::int64_t longest =
      decode_rows ? *std::max_element(host_decode_keys_.begin(), host_decode_keys_.end()) : 0;
  const bool graph = graphs_ && rows > 0 && decode_rows == rows && sampled == rows && bucket(rows) <= max_graph_rows_;
  if (graph) {  // padded to its bucket on the scratch block, replayed
    host_tokens_.assign(tokens.begin(), tokens.end());
    pad_to(bucket(rows));
    replay(bucket(rows), keys_bucket(longest));
  } else {
    upload_step(tokens);
    StepShape step{rows, decode_rows, sampled, keys_bucket(longest), 0};
    if (decode_rows > 0) {
      step.splits = attention::decode_splits(decode_rows, w_.config.kv_heads, step.keys_bound, resident_blocks_);
      ensure_decode_workspace(decode_rows, step.splits);
    }
    queue_step(step);
  }
  last_sampled_ = sampled;
  if (sampled > 0) {
    host_next_.resize(static_cast<std::size_t>(sampled));
    ROOFTOP_GPU_CHECK(cudaMemcpyAsync(host_next_.data(), next_.get(), static_cast<std::size_t>(sampled) * 4,
                                      cudaMemcpyDeviceToHost, gpu::stream()));
  }
  ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
  std::copy(host_next_.begin(), host_next_.begin() + sampled, next.begin());
}

void CudaServeDecoder::queue_step(const StepShape& step) {
  const auto& c = w_.config;
  const kernels::RaggedRows where{pos_.as<std::int32_t>(), table_at_.as<std::int32_t>(), tables_.as<std::int32_t>(), page_};
  const std::int64_t rows = step.rows, mm = bucket(rows), hidden = c.hidden, d = c.head_dim;
  const float eps = static_cast<float>(c.rms_eps);
  const std::size_t layer_cache = static_cast<std::size_t>((blocks_ + 1) * c.kv_heads * page_ * d) * 2;
  kernels::embed(tokens_.as<std::int32_t>(), embedding_.get(), h_.as<float>(), rows, hidden);
  for (std::int64_t l = 0; l < layers_; ++l) {
    const auto& L = layer_weights_[static_cast<std::size_t>(l)];
    void* kc = static_cast<char*>(k_cache_.get()) + static_cast<std::size_t>(l) * layer_cache;
    void* vc = static_cast<char*>(v_cache_.get()) + static_cast<std::size_t>(l) * layer_cache;
    kernels::rms_norm(h_.as<float>(), L.attn_norm.as<float>(), xn_.get(), rows, 1, 0, hidden, eps);
    matmul(mm, c.qkv_width(), hidden).execute_on(xn_.get(), L.qkv.get(), qkv_.get());
    kernels::ragged_rope_and_cache(qkv_.as<float>(), kc, vc, q16_.get(), rope_table_.as<float>(), rows, where, c.heads,
                                   c.kv_heads, d, or_null(L.qkv_bias));
    queue_attention(l, step, kc, vc);
    matmul(mm, hidden, c.heads * d).execute_on(attn_.get(), L.o.get(), h_.get(), 1, 1);  // h += attn Wo^T
    if (L.o_bias.bytes()) kernels::add_bias(h_.as<float>(), L.o_bias.as<float>(), rows, hidden);
    kernels::rms_norm(h_.as<float>(), L.mlp_norm.as<float>(), xn_.get(), rows, 1, 0, hidden, eps);
    matmul(mm, 2 * c.intermediate, hidden).execute_on(xn_.get(), L.gate_up.get(), gate_up_.get());
    kernels::swiglu(gate_up_.as<float>(), act_.get(), rows, c.intermediate, 0, or_null(L.gate_up_bias));
    matmul(mm, hidden, c.intermediate).execute_on(act_.get(), L.down.get(), h_.get(), 1, 1);  // h += act Wd^T
    if (L.down_bias.bytes()) kernels::add_bias(h_.as<float>(), L.down_bias.as<float>(), rows, hidden);
  }
  const std::int64_t sampled = step.sampled;
  if (sampled == 0) return;
  kernels::gather_rows(h_.as<float>(), sample_rows_.as<std::int32_t>(), h_sampled_.as<float>(), sampled, hidden);
  kernels::rms_norm(h_sampled_.as<float>(), final_norm_.as<float>(), xn_.get(), sampled, 1, 0, hidden, eps);
  matmul(bucket(sampled), c.vocab, hidden).execute_on(xn_.get(), head_.bytes() ? head_.get() : embedding_.get(), logits_.get());
  kernels::argmax(logits_.as<float>(), next_.as<std::int32_t>(), sampled, c.vocab, argmax_workspace_.get());
}

const std::vector<float>& CudaServeDecoder::logits() {
  host_logits_.resize(static_cast<std::size_t>(last_sampled_ * w_.config.vocab));
  if (!host_logits_.empty())
    ROOFTOP_GPU_CHECK(cudaMemcpy(host_logits_.data(), logits_.get(), host_logits_.size() * 4, cudaMemcpyDeviceToHost));
  return host_logits_;
}

void CudaServeDecoder::poison_logits() {
  kernels::poison_f32(logits_.as<float>(), static_cast<std::int64_t>(logits_.bytes() / 4));
  ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
}

std::string CudaServeDecoder::implementation() const {
  std::string algo;
  if (!matmuls_.empty()) algo = matmuls_.begin()->second->algorithm();
  return fmt::format("{} matmuls ({}, rows padded to buckets); {}rooftop ragged paged attention{} and RoPE (page {}), the "
                     "decoder's norm, SwiGLU and argmax kernels; {}",
                     gpu::kVendorMatmulName, algo, split_decode_ ? "decode rows on the split-KV decode kernel, " : "",
                     split_decode_ ? " for prefill rows" : " (generic: no split kernel for this head dim, group or page)", page_,
                     graphs_ ? fmt::format("decode-only steps replayed from {} CUDA graphs (batch x keys buckets), prompt "
                                           "steps eager", graphs_by_shape_.size())
                             : "eager launches");
}

}  // namespace rooftop::inference
