// A tensor-parallel rank's slice of a decoder's weights (decoder_weights.hpp).
#include <algorithm>
#include <cstring>

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
  return w;
}

}  // namespace rooftop::inference
