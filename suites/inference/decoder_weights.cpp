#include "suites/inference/decoder_weights.hpp"

#include <cmath>
#include <cstring>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "harness/dtype_facts.hpp"
#include "harness/errors.hpp"
#include "harness/fp16.hpp"
#include "suites/inference/safetensors.hpp"
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

// A checkpoint's fp8 activation scales come from a prompt of this seed: the same scales every run.
constexpr std::uint64_t kCheckpointCalibrationSeed = 0xca11b8a7e;

// Uniform in [-a, a) has standard deviation a / sqrt(3).
double projection_range(std::int64_t fan_in) { return std::sqrt(3.0 / static_cast<double>(fan_in)); }

}  // namespace

DecoderWeights random_decoder_weights(const ModelConfig& c, Dtype dtype, std::uint64_t seed, std::int64_t layers) {
  if (dtype == Dtype::fp8) return quantize_to_fp8(random_decoder_weights(c, Dtype::bf16, seed, layers), seed);
  if (dtype != Dtype::fp32 && dtype != Dtype::bf16)
    throw PointSkipped(fmt::format("the decoder's weights are fp32, bf16 or fp8, not {}", dtype_name(dtype)));
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

namespace {

// The checkpoint's files, searched for a tensor by name.
class Checkpoint {
 public:
  explicit Checkpoint(const std::vector<std::filesystem::path>& paths) {
    for (const auto& p : paths) files_.push_back(std::make_unique<SafetensorsFile>(p));
    if (files_.empty()) throw InputError("no .safetensors file given for the model's weights");
  }
  // The tensor's values in `dtype` (as bytes), after checking its shape.
  std::vector<std::uint8_t> matrix(const std::string& name, std::vector<std::int64_t> shape, Dtype dtype) const {
    for (const auto& f : files_)
      if (const auto* t = f->find(name)) {
        if (t->shape != shape)
          throw InputError(fmt::format("{}: tensor '{}' has shape [{}], the model config needs [{}]: the weights are "
                                       "of another model", f->path().string(), name, fmt::join(t->shape, ", "),
                                       fmt::join(shape, ", ")));
        std::vector<std::uint8_t> raw;
        f->read(*t, raw);
        return convert(raw, t->dtype, dtype, f->path().string() + ": tensor '" + name + "'");
      }
    throw InputError(fmt::format("{}: no tensor '{}': not a Llama checkpoint, or a shard is missing",
                                 files_.front()->path().string(), name));
  }
  std::vector<float> vector(const std::string& name, std::int64_t n) const {
    const auto bytes = matrix(name, {n}, Dtype::fp32);
    std::vector<float> out(static_cast<std::size_t>(n));
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }
  bool has(const std::string& name) const {
    for (const auto& f : files_)
      if (f->find(name)) return true;
    return false;
  }

 private:
  static std::vector<std::uint8_t> convert(const std::vector<std::uint8_t>& raw, const std::string& from, Dtype to,
                                           const std::string& what) {
    const std::size_t n = raw.size() / safetensors_element_size(from);
    std::vector<std::uint8_t> out(n * input_size(to));
    const auto value = [&](std::size_t i) -> float {
      if (from == "F32") return reinterpret_cast<const float*>(raw.data())[i];
      if (from == "BF16") return static_cast<float>(load_element(Dtype::bf16, raw.data(), i));
      return half_to_float(reinterpret_cast<const std::uint16_t*>(raw.data())[i]);  // F16
    };
    if (from != "F32" && from != "BF16" && from != "F16")
      throw InputError(fmt::format("{} is {}: the decoder reads F32, BF16 or F16 weights", what, from));
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) store_element(to, out.data(), i, value(i));
    return out;
  }
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
};

std::vector<std::uint8_t> stack(std::vector<std::vector<std::uint8_t>> parts) {
  std::vector<std::uint8_t> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace

DecoderWeights load_decoder_weights(const ModelConfig& c, Dtype dtype, const std::vector<std::filesystem::path>& paths) {
  if (dtype == Dtype::fp8) return quantize_to_fp8(load_decoder_weights(c, Dtype::bf16, paths), kCheckpointCalibrationSeed);
  if (dtype != Dtype::fp32 && dtype != Dtype::bf16)
    throw PointSkipped(fmt::format("the decoder's weights are fp32, bf16 or fp8, not {}", dtype_name(dtype)));
  const Checkpoint ck(paths);
  DecoderWeights w;
  w.config = c;
  w.dtype = dtype;
  const std::int64_t h = c.hidden, q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim, in = c.intermediate;
  w.embedding = ck.matrix("model.embed_tokens.weight", {c.vocab, h}, dtype);
  if (!c.tied_embeddings) w.lm_head = ck.matrix("lm_head.weight", {c.vocab, h}, dtype);
  w.final_norm = ck.vector("model.norm.weight", h);
  for (std::int64_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    DecoderLayer layer;
    layer.attn_norm = ck.vector(p + "input_layernorm.weight", h);
    layer.mlp_norm = ck.vector(p + "post_attention_layernorm.weight", h);
    // Fused as the decoder multiplies them: [q; k; v] and [gate; up], rows stacked.
    layer.qkv = stack({ck.matrix(p + "self_attn.q_proj.weight", {q, h}, dtype), ck.matrix(p + "self_attn.k_proj.weight", {kv, h}, dtype),
                       ck.matrix(p + "self_attn.v_proj.weight", {kv, h}, dtype)});
    layer.o = ck.matrix(p + "self_attn.o_proj.weight", {h, q}, dtype);
    layer.gate_up = stack({ck.matrix(p + "mlp.gate_proj.weight", {in, h}, dtype), ck.matrix(p + "mlp.up_proj.weight", {in, h}, dtype)});
    layer.down = ck.matrix(p + "mlp.down_proj.weight", {h, in}, dtype);
    w.layers.push_back(std::move(layer));
  }
  return w;
}

}  // namespace rooftop::inference
