// A tensor-parallel rank's slice of a decoder's weights (decoder_weights.hpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "harness/bf16.hpp"
#include "harness/random_fill.hpp"

#include "suites/inference/decoder_weights.hpp"

namespace rooftop::inference {
namespace {

// Rows [begin, begin + count) of a row-major matrix of `cols` columns, appended to `out`.
void append_rows(std::vector<std::uint8_t>& out, const std::vector<std::uint8_t>& m, std::int64_t cols, IndexRange rows,
                 std::size_t element) {
  const std::size_t row_bytes = static_cast<std::size_t>(cols) * element;
  const auto* from = m.data() + static_cast<std::size_t>(rows.begin) * row_bytes;
  out.insert(out.end(), from, from + static_cast<std::size_t>(rows.count) * row_bytes);
}

// Columns [begin, begin + count) of every row of a row-major [rows, cols] matrix.
std::vector<std::uint8_t> columns(const std::vector<std::uint8_t>& m, std::int64_t rows, std::int64_t cols, IndexRange keep,
                                  std::size_t element) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(rows * keep.count) * element);
  const std::size_t in_row = static_cast<std::size_t>(cols) * element, out_row = static_cast<std::size_t>(keep.count) * element;
  for (std::int64_t r = 0; r < rows; ++r)
    std::memcpy(out.data() + static_cast<std::size_t>(r) * out_row,
                m.data() + static_cast<std::size_t>(r) * in_row + static_cast<std::size_t>(keep.begin) * element, out_row);
  return out;
}

std::vector<float> pick(const std::vector<float>& v, std::initializer_list<IndexRange> ranges) {
  std::vector<float> out;
  if (v.empty()) return out;
  for (const auto& r : ranges) out.insert(out.end(), v.begin() + r.begin, v.begin() + r.end());
  return out;
}

IndexRange times(IndexRange r, std::int64_t k, std::int64_t offset = 0) { return {offset + r.begin * k, r.count * k}; }

}  // namespace

DecoderWeights shard_decoder_weights(const DecoderWeights& full, const TensorParallelSlice& s, std::int64_t layers) {
  if (full.shard) throw std::logic_error("shard_decoder_weights: the weights are a shard already");
  const ModelConfig& m = full.config;
  const std::int64_t d = m.head_dim, h = m.hidden, inter = m.intermediate;
  const std::size_t element = input_size(full.dtype);
  DecoderWeights w;
  w.config = rank_config(m, s);
  w.config.tied_embeddings = false;  // the shard's head is its own rows
  w.dtype = full.dtype;
  w.embedding = full.embedding;
  w.final_norm = full.final_norm;
  w.head_scale = full.head_scale;
  const auto& head = full.lm_head.empty() ? full.embedding : full.lm_head;
  append_rows(w.lm_head, head, h, s.vocab, full.lm_head.empty() ? input_size(full.embedding_dtype()) : element);
  const auto n = layers < 0 ? full.layers.size() : std::min(full.layers.size(), static_cast<std::size_t>(layers));
  // [q; k; v] rows and [gate; up] rows of the rank's heads and columns.
  const IndexRange q = times(s.q_heads, d), k = times(s.kv_heads, d, m.heads * d),
                   v = times(s.kv_heads, d, (m.heads + m.kv_heads) * d);
  const IndexRange gate = s.intermediate, up{inter + s.intermediate.begin, s.intermediate.count};
  for (std::size_t l = 0; l < n; ++l) {
    const DecoderLayer& f = full.layers[l];
    DecoderLayer r;
    r.attn_norm = f.attn_norm;
    r.mlp_norm = f.mlp_norm;
    for (const auto& range : {q, k, v}) append_rows(r.qkv, f.qkv, h, range, element);
    for (const auto& range : {gate, up}) append_rows(r.gate_up, f.gate_up, h, range, element);
    r.o = columns(f.o, h, m.heads * d, q, element);
    r.down = columns(f.down, h, inter, s.intermediate, element);
    r.qkv_bias = pick(f.qkv_bias, {q, k, v});
    r.gate_up_bias = pick(f.gate_up_bias, {gate, up});
    r.o_bias = f.o_bias;
    r.down_bias = f.down_bias;
    r.qkv_scale = f.qkv_scale;
    r.o_scale = f.o_scale;
    r.gate_up_scale = f.gate_up_scale;
    r.down_scale = f.down_scale;
    w.layers.push_back(std::move(r));
  }
  w.config.layers = static_cast<std::int64_t>(w.layers.size());
  w.shard = DecoderWeights::Shard{m, s};
  w.shard->model.layers = w.config.layers;
  return w;
}

}  // namespace rooftop::inference

namespace rooftop::inference {
namespace {

// Rows `rows` (each a range) and columns `keep` of the seeded [*, cols] matrix that
// random_decoder_weights draws (uniform in +-half_range, element i of the whole matrix from
// uniform_at(seed, i)), row-major.
std::vector<std::uint8_t> random_block(Dtype dtype, std::initializer_list<IndexRange> rows, std::int64_t cols,
                                       IndexRange keep, double half_range, std::uint64_t seed) {
  std::vector<std::int64_t> global;
  for (const auto& r : rows)
    for (auto row = r.begin; row < r.end(); ++row) global.push_back(row);
  const auto n = static_cast<std::int64_t>(global.size()) * keep.count;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(n) * input_size(dtype));
  const auto r = static_cast<float>(half_range);  // as random_matrix passes it
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const auto at = static_cast<std::uint64_t>(global[static_cast<std::size_t>(i / keep.count)] * cols + keep.begin + i % keep.count);
    const auto v = static_cast<float>(uniform_at(seed, at, -r, r));
    if (dtype == Dtype::bf16) reinterpret_cast<std::uint16_t*>(out.data())[i] = float_to_bf16(v);
    else reinterpret_cast<float*>(out.data())[i] = v;
  }
  return out;
}

double projection_range(std::int64_t fan_in) { return std::sqrt(3.0 / static_cast<double>(fan_in)); }

}  // namespace

DecoderWeights random_shard_weights(const ModelConfig& c, Dtype dtype, std::uint64_t seed, const TensorParallelSlice& s,
                                    std::int64_t layers) {
  if (dtype != Dtype::fp32 && dtype != Dtype::bf16) return shard_decoder_weights(random_decoder_weights(c, dtype, seed, layers), s);
  // The draws of random_decoder_weights, in its order of seeds, each kept to the rank's part.
  const std::int64_t h = c.hidden, d = c.head_dim, inter = c.intermediate, q_width = c.heads * d;
  const std::int64_t n_layers = layers < 0 ? c.layers : std::min(layers, c.layers);
  const IndexRange all_h{0, h}, q{s.q_heads.begin * d, s.q_heads.count * d}, k{q_width + s.kv_heads.begin * d, s.kv_heads.count * d},
                   v{q_width + c.kv_heads * d + s.kv_heads.begin * d, s.kv_heads.count * d};
  const IndexRange gate = s.intermediate, up{inter + s.intermediate.begin, s.intermediate.count};
  DecoderWeights w;
  w.dtype = dtype;
  std::uint64_t seeds = splitmix64(seed);
  const std::uint64_t embedding_seed = seeds++;
  w.embedding = random_block(dtype, {{0, c.vocab}}, h, all_h, 1.0, embedding_seed);
  w.lm_head = c.tied_embeddings ? random_block(dtype, {s.vocab}, h, all_h, 1.0, embedding_seed)
                                : random_block(dtype, {s.vocab}, h, all_h, projection_range(h), seeds++);
  w.final_norm.assign(static_cast<std::size_t>(h), 1.0f);
  const auto pick = [](const std::vector<float>& b, std::initializer_list<IndexRange> ranges) {
    std::vector<float> out;
    for (const auto& r : ranges) out.insert(out.end(), b.begin() + r.begin, b.begin() + r.end());
    return out;
  };
  for (std::int64_t l = 0; l < n_layers; ++l) {
    DecoderLayer layer;
    layer.attn_norm.assign(static_cast<std::size_t>(h), 1.0f);
    layer.mlp_norm.assign(static_cast<std::size_t>(h), 1.0f);
    layer.qkv = random_block(dtype, {q, k, v}, h, all_h, projection_range(h), seeds++);
    layer.o = random_block(dtype, {all_h}, q_width, q, projection_range(q_width), seeds++);
    layer.gate_up = random_block(dtype, {gate, up}, h, all_h, projection_range(h), seeds++);
    layer.down = random_block(dtype, {all_h}, inter, s.intermediate, projection_range(inter), seeds++);
    // Biases whole (they are small), as random_decoder_weights draws them, then the rank's part.
    const auto bias = [&](bool present, std::int64_t n) {
      std::vector<float> b;
      if (present) {
        b.resize(static_cast<std::size_t>(n));
        fill_uniform(b, seeds++, -0.2f, 0.2f);
      }
      return b;
    };
    const auto qkv_bias = bias(c.qkv_bias, c.qkv_width());
    layer.qkv_bias = qkv_bias.empty() ? qkv_bias : pick(qkv_bias, {q, k, v});
    layer.o_bias = bias(c.o_bias, h);
    const auto gate_up_bias = bias(c.mlp_bias, 2 * inter);
    layer.gate_up_bias = gate_up_bias.empty() ? gate_up_bias : pick(gate_up_bias, {gate, up});
    layer.down_bias = bias(c.mlp_bias, h);
    w.layers.push_back(std::move(layer));
  }
  w.config = rank_config(c, s);
  w.config.tied_embeddings = false;  // the shard's head is its own rows
  w.config.layers = n_layers;
  w.shard = DecoderWeights::Shard{c, s};
  w.shard->model.layers = n_layers;
  return w;
}

TensorParallelSlice decoder_slice(const DecoderWeights& w, int tp, int rank) {
  if (w.shard) {
    if (tp != w.shard->slice.tp || rank != w.shard->slice.rank)
      throw std::logic_error("a rank's shard of the weights given to a decoder of another rank or group");
    return w.shard->slice;
  }
  return tp > 1 ? tensor_parallel_slice(w.config, tp, rank) : TensorParallelSlice{};
}

std::unique_ptr<const DecoderWeights> decoder_shard(const DecoderWeights& w, const TensorParallelSlice& slice,
                                                    std::int64_t layers) {
  if (slice.tp <= 1 || w.shard) return nullptr;
  return std::make_unique<const DecoderWeights>(shard_decoder_weights(w, slice, layers));
}

}  // namespace rooftop::inference
