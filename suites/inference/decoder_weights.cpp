#include "suites/inference/decoder_weights.hpp"

#include <cmath>
#include <span>

#include "harness/errors.hpp"
#include "harness/random_fill.hpp"

namespace rooftop::inference {
namespace {

std::vector<std::uint8_t> random_matrix(Dtype dtype, std::int64_t rows, std::int64_t cols, double half_range,
                                        std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(rows * cols);
  std::vector<std::uint8_t> out(n * input_size(dtype));
  const auto r = static_cast<float>(half_range);
  if (dtype == Dtype::bf16) fill_uniform_bf16({reinterpret_cast<std::uint16_t*>(out.data()), n}, seed, -r, r);
  else fill_uniform({reinterpret_cast<float*>(out.data()), n}, seed, -r, r);
  return out;
}

// Uniform in [-a, a) has standard deviation a / sqrt(3).
double projection_range(std::int64_t fan_in) { return std::sqrt(3.0 / static_cast<double>(fan_in)); }

}  // namespace

DecoderWeights random_decoder_weights(const ModelConfig& c, Dtype dtype, std::uint64_t seed, std::int64_t layers) {
  if (dtype != Dtype::fp32 && dtype != Dtype::bf16)
    throw PointSkipped("the CPU decoder runs fp32 and bf16 (fp8 weights are the CUDA backend's)");
  DecoderWeights w;
  w.config = c;
  w.dtype = dtype;
  const std::int64_t n_layers = layers < 0 ? c.layers : std::min(layers, c.layers);
  std::uint64_t s = splitmix64(seed);
  w.embedding = random_matrix(dtype, c.vocab, c.hidden, 1.0, s++);
  if (!c.tied_embeddings) w.lm_head = random_matrix(dtype, c.vocab, c.hidden, projection_range(c.hidden), s++);
  w.final_norm.assign(static_cast<std::size_t>(c.hidden), 1.0f);
  for (std::int64_t l = 0; l < n_layers; ++l) {
    DecoderLayer layer;
    layer.attn_norm.assign(static_cast<std::size_t>(c.hidden), 1.0f);
    layer.mlp_norm.assign(static_cast<std::size_t>(c.hidden), 1.0f);
    layer.qkv = random_matrix(dtype, c.qkv_width(), c.hidden, projection_range(c.hidden), s++);
    layer.o = random_matrix(dtype, c.hidden, c.heads * c.head_dim, projection_range(c.heads * c.head_dim), s++);
    layer.gate_up = random_matrix(dtype, 2 * c.intermediate, c.hidden, projection_range(c.hidden), s++);
    layer.down = random_matrix(dtype, c.hidden, c.intermediate, projection_range(c.intermediate), s++);
    w.layers.push_back(std::move(layer));
  }
  w.config.layers = n_layers;
  return w;
}

}  // namespace rooftop::inference
