#include "suites/inference/decoder_weights.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <mutex>
#include <set>

#include "harness/dtype_facts.hpp"
#include "harness/errors.hpp"
#include "harness/input_file.hpp"
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
    // Biases of the scale a trained model's take (a fraction of the activations').
    const auto bias = [&](bool present, std::int64_t n) {
      std::vector<float> b;
      if (present) {
        b.resize(static_cast<std::size_t>(n));
        fill_uniform(b, s++, -0.2f, 0.2f);
      }
      return b;
    };
    layer.qkv_bias = bias(c.qkv_bias, c.qkv_width());
    layer.o_bias = bias(c.o_bias, c.hidden);
    layer.gate_up_bias = bias(c.mlp_bias, 2 * c.intermediate);
    layer.down_bias = bias(c.mlp_bias, c.hidden);
    w.layers.push_back(std::move(layer));
  }
  w.config.layers = n_layers;
  return w;
}

namespace {

// Where the decoder reads each tensor it needs, with the shape the config gives it.
struct NeededTensor {
  std::string name;
  std::vector<std::int64_t> shape;
};

std::vector<NeededTensor> needed_tensors(const ModelConfig& c) {
  const std::int64_t h = c.hidden, q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim, in = c.intermediate;
  std::vector<NeededTensor> out{{"model.embed_tokens.weight", {c.vocab, h}}, {"model.norm.weight", {h}}};
  if (!c.tied_embeddings) out.push_back({"lm_head.weight", {c.vocab, h}});
  for (std::int64_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    const std::vector<std::pair<const char*, std::vector<std::int64_t>>> parts{
        {"input_layernorm.weight", {h}},     {"post_attention_layernorm.weight", {h}}, {"self_attn.q_proj.weight", {q, h}},
        {"self_attn.k_proj.weight", {kv, h}}, {"self_attn.v_proj.weight", {kv, h}},   {"self_attn.o_proj.weight", {h, q}},
        {"mlp.gate_proj.weight", {in, h}},   {"mlp.up_proj.weight", {in, h}},         {"mlp.down_proj.weight", {h, in}}};
    for (const auto& [name, shape] : parts) out.push_back({p + name, shape});
    if (c.qkv_bias)
      for (const auto& [name, n] : {std::pair{"self_attn.q_proj.bias", q}, {"self_attn.k_proj.bias", kv}, {"self_attn.v_proj.bias", kv}})
        out.push_back({p + name, {n}});
    if (c.o_bias) out.push_back({p + "self_attn.o_proj.bias", {h}});
    if (c.mlp_bias)
      for (const auto& [name, n] : {std::pair{"mlp.gate_proj.bias", in}, {"mlp.up_proj.bias", in}, {"mlp.down_proj.bias", h}})
        out.push_back({p + name, {n}});
  }
  return out;
}

// The first NaN or infinity among raw F32, BF16 or F16 values: its index and which.
std::optional<std::pair<std::uint64_t, const char*>> first_non_finite(std::span<const std::uint8_t> raw,
                                                                      std::string_view dtype) {
  const auto find = [&]<typename Bits>(Bits exponent, Bits mantissa) -> std::optional<std::pair<std::uint64_t, const char*>> {
    for (std::size_t i = 0; i + sizeof(Bits) <= raw.size(); i += sizeof(Bits)) {
      Bits v;
      std::memcpy(&v, raw.data() + i, sizeof(Bits));
      if ((v & exponent) == exponent) return std::pair{i / sizeof(Bits), (v & mantissa) ? "a NaN" : "an infinity"};
    }
    return std::nullopt;
  };
  if (dtype == "F32") return find(std::uint32_t{0x7f800000}, std::uint32_t{0x007fffff});
  if (dtype == "BF16") return find(std::uint16_t{0x7f80}, std::uint16_t{0x007f});
  if (dtype == "F16") return find(std::uint16_t{0x7c00}, std::uint16_t{0x03ff});
  return std::nullopt;
}

bool readable_dtype(std::string_view dtype) { return dtype == "F32" || dtype == "BF16" || dtype == "F16"; }

[[noreturn]] void refuse_non_finite(const std::filesystem::path& file, const std::string& tensor, std::uint64_t element,
                                    const char* what) {
  throw InputError(fmt::format("{}: tensor '{}' holds {} (element {}): the weights are corrupt or diverged, and every "
                               "token would be garbage; download or export them again",
                               file.string(), tensor, what, element));
}

// The checkpoint's files, searched for a tensor by name: every name in exactly one file.
class Checkpoint {
 public:
  explicit Checkpoint(const std::vector<std::filesystem::path>& paths) {
    for (const auto& p : paths) files_.push_back(std::make_unique<SafetensorsFile>(p));
    if (files_.empty()) throw InputError("no .safetensors file given for the model's weights");
    for (const auto& f : files_)
      for (const auto& t : f->tensors()) {
        const auto [at, fresh] = owner_.emplace(t.name, f.get());
        if (!fresh)
          throw InputError(fmt::format("tensor '{}' is in two shards, {} and {}: which one is the model's is unknown; "
                                       "remove the stale file or download the checkpoint again",
                                       t.name, at->second->path().string(), f->path().string()));
      }
    check_index(paths.front().parent_path() / "model.safetensors.index.json");
  }
  // The file holding `name`, and its entry, after checking its shape and dtype.
  std::pair<const SafetensorsFile*, const TensorInfo*> find(const std::string& name, const std::vector<std::int64_t>& shape) const {
    const auto it = owner_.find(name);
    if (it == owner_.end())
      throw InputError(fmt::format("{}: no tensor '{}': not a Llama checkpoint, or a shard is missing",
                                   files_.front()->path().string(), name));
    const SafetensorsFile* f = it->second;
    const TensorInfo* t = f->find(name);
    if (t->shape != shape)
      throw InputError(fmt::format("{}: tensor '{}' has shape [{}], the model config needs [{}]: the weights are "
                                   "of another model", f->path().string(), name, fmt::join(t->shape, ", "),
                                   fmt::join(shape, ", ")));
    if (!readable_dtype(t->dtype))
      throw InputError(fmt::format("{}: tensor '{}' is {}: the decoder reads F32, BF16 or F16 weights", f->path().string(),
                                   name, t->dtype));
    return {f, t};
  }
  // The tensor's values in `dtype` (as bytes), after checking its shape and, unless
  // validate_checkpoint did it, that every value is finite.
  std::vector<std::uint8_t> matrix(const NeededTensor& tensor, Dtype dtype, bool check_finite) const {
    const auto [f, t] = find(tensor.name, tensor.shape);
    std::vector<std::uint8_t> raw;
    f->read(*t, raw);
    if (check_finite)
      if (const auto bad = first_non_finite(raw, t->dtype)) refuse_non_finite(f->path(), tensor.name, bad->first, bad->second);
    return convert(raw, t->dtype, dtype);
  }
  // Every value of the tensor finite, read a chunk at a time (a check before any point runs).
  void scan(const std::string& name, const std::vector<std::int64_t>& shape) const {
    const auto [file, tensor] = find(name, shape);
    const SafetensorsFile* f = file;
    const TensorInfo* t = tensor;
    const std::uint64_t element = safetensors_element_size(t->dtype);
    f->scan(*t, [&](std::span<const std::uint8_t> chunk, std::uint64_t first_byte) {
      if (const auto bad = first_non_finite(chunk, t->dtype))
        refuse_non_finite(f->path(), name, first_byte / element + bad->first, bad->second);
    });
  }
  const std::map<std::string, const SafetensorsFile*, std::less<>>& tensors() const { return owner_; }

 private:
  // A sharded checkpoint's index maps each tensor to its shard: a tensor found in another
  // file means the folder mixes two downloads.
  void check_index(const std::filesystem::path& index) const {
    if (!std::filesystem::exists(index)) return;
    const std::string text = read_input_file(index, "checkpoint index");
    if (is_git_lfs_pointer(text))
      throw InputError(fmt::format("{}: is a Git LFS pointer file, not the index: {}", index.string(), kGitLfsAdvice));
    const nlohmann::json j = parse_json_input(text, index.string(), "checkpoint index (download the checkpoint again)");
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
      throw InputError(fmt::format("{}: has no \"weight_map\" object: download the checkpoint again", index.string()));
    for (const auto& [name, shard] : j["weight_map"].items()) {
      const auto it = owner_.find(name);
      const std::string listed = shard.is_string() ? shard.get<std::string>() : quote_json(shard);
      if (it == owner_.end())
        throw InputError(fmt::format("{}: lists tensor '{}' in {}, but no .safetensors file of the folder holds it: a "
                                     "shard is missing; download the checkpoint again", index.string(), name, listed));
      if (it->second->path().filename() != listed)
        throw InputError(fmt::format("{}: lists tensor '{}' in {}, but it is in {}: the folder mixes files of two "
                                     "downloads; download the checkpoint again", index.string(), name, listed,
                                     it->second->path().string()));
    }
  }
  static std::vector<std::uint8_t> convert(const std::vector<std::uint8_t>& raw, const std::string& from, Dtype to) {
    const std::size_t n = raw.size() / safetensors_element_size(from);
    std::vector<std::uint8_t> out(n * input_size(to));
    const auto value = [&](std::size_t i) -> float {
      if (from == "F32") return reinterpret_cast<const float*>(raw.data())[i];
      if (from == "BF16") return static_cast<float>(load_element(Dtype::bf16, raw.data(), i));
      return half_to_float(reinterpret_cast<const std::uint16_t*>(raw.data())[i]);  // F16
    };
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) store_element(to, out.data(), i, value(i));
    return out;
  }
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, const SafetensorsFile*, std::less<>> owner_;  // tensor name -> the file holding it
};

// A tensor the decoder has no use for that means the config describes another model.
void refuse_unused_tensors(const Checkpoint& ck, const ModelConfig& c) {
  std::set<std::string, std::less<>> needed;
  for (auto& t : needed_tensors(c)) needed.insert(std::move(t.name));
  for (const auto& [name, file] : ck.tensors()) {
    if (name.ends_with(".bias") && !needed.contains(name))
      throw InputError(fmt::format("{}: tensor '{}' is a bias that the config ({} with attention_bias/mlp_bias as given) "
                                   "does not have: the decoder would compute another model; fix config.json or the "
                                   "checkpoint", file->path().string(), name, c.family));
    long long layer = -1;
    if (std::sscanf(name.c_str(), "model.layers.%lld.", &layer) == 1 && layer >= c.layers)
      throw InputError(fmt::format("{}: tensor '{}' is of layer {}, but the config's num_hidden_layers is {}: the config "
                                   "is of another model", file->path().string(), name, layer, c.layers));
  }
}

// Checkpoints validate_checkpoint read whole in this process: the files (each one's path, size
// and time) and the tensors the config needs. Loading one of them repeats none of it.
class ValidatedCheckpoints {
 public:
  static std::string key(const ModelConfig& c, const std::vector<std::filesystem::path>& files) {
    std::string k;
    for (const auto& f : files) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(f, ec);
      const auto time = std::filesystem::last_write_time(f, ec).time_since_epoch().count();
      k += fmt::format("{}\n{}\n{}\n", f.string(), size, time);
    }
    for (const auto& t : needed_tensors(c)) k += fmt::format("{} [{}]\n", t.name, fmt::join(t.shape, ","));
    return k;
  }
  bool contains(const std::string& key) const {
    const std::lock_guard lock(mutex_);
    return keys_.contains(key);
  }
  void insert(std::string key) {
    const std::lock_guard lock(mutex_);
    keys_.insert(std::move(key));
  }

 private:
  mutable std::mutex mutex_;
  std::set<std::string> keys_;
};

ValidatedCheckpoints& validated_checkpoints() {
  static ValidatedCheckpoints v;
  return v;
}

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
  // A checkpoint validated when the run was planned was read whole then: its tensors'
  // names, shapes and values are not checked again.
  const bool validated = validated_checkpoints().contains(ValidatedCheckpoints::key(c, paths));
  if (!validated) refuse_unused_tensors(ck, c);
  std::map<std::string, NeededTensor, std::less<>> needed;
  for (auto& t : needed_tensors(c)) needed.emplace(t.name, std::move(t));
  const auto matrix = [&](const std::string& name, Dtype to) { return ck.matrix(needed.at(name), to, !validated); };
  const auto vector = [&](const std::string& name) {
    const auto bytes = matrix(name, Dtype::fp32);
    std::vector<float> out(bytes.size() / sizeof(float));
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  };
  DecoderWeights w;
  w.config = c;
  w.dtype = dtype;
  w.embedding = matrix("model.embed_tokens.weight", dtype);
  if (!c.tied_embeddings) w.lm_head = matrix("lm_head.weight", dtype);
  w.final_norm = vector("model.norm.weight");
  for (std::int64_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    DecoderLayer layer;
    layer.attn_norm = vector(p + "input_layernorm.weight");
    layer.mlp_norm = vector(p + "post_attention_layernorm.weight");
    // Fused as the decoder multiplies them: [q; k; v] and [gate; up], rows stacked.
    layer.qkv = stack({matrix(p + "self_attn.q_proj.weight", dtype), matrix(p + "self_attn.k_proj.weight", dtype),
                       matrix(p + "self_attn.v_proj.weight", dtype)});
    layer.o = matrix(p + "self_attn.o_proj.weight", dtype);
    layer.gate_up = stack({matrix(p + "mlp.gate_proj.weight", dtype), matrix(p + "mlp.up_proj.weight", dtype)});
    layer.down = matrix(p + "mlp.down_proj.weight", dtype);
    const auto biases = [&](std::initializer_list<const char*> names) {
      std::vector<float> out;
      for (const char* name : names) {
        const auto part = vector(p + name);
        out.insert(out.end(), part.begin(), part.end());
      }
      return out;
    };
    if (c.qkv_bias) layer.qkv_bias = biases({"self_attn.q_proj.bias", "self_attn.k_proj.bias", "self_attn.v_proj.bias"});
    if (c.o_bias) layer.o_bias = biases({"self_attn.o_proj.bias"});
    if (c.mlp_bias) {
      layer.gate_up_bias = biases({"mlp.gate_proj.bias", "mlp.up_proj.bias"});
      layer.down_bias = biases({"mlp.down_proj.bias"});
    }
    w.layers.push_back(std::move(layer));
  }
  return w;
}

void validate_checkpoint(const ModelConfig& c, const std::vector<std::filesystem::path>& paths) {
  if (paths.empty()) return;
  const auto folder = paths.front().parent_path();
  if (!c.values_not_implemented.empty())
    throw InputError(fmt::format("{}: rooftop's decoder does not implement the config's {}: the checkpoint's tokens would "
                                 "be wrong. Give its config.json alone to time the model with random weights (that field "
                                 "changes the values, not the work)",
                                 folder.string(), fmt::join(c.values_not_implemented, ", ")));
  auto key = ValidatedCheckpoints::key(c, paths);
  if (validated_checkpoints().contains(key)) return;
  const Checkpoint ck(paths);
  refuse_unused_tensors(ck, c);
  const auto needed = needed_tensors(c);
  for (const auto& t : needed) ck.find(t.name, t.shape);  // every name, shape and dtype before reading a value
  for (const auto& t : needed) ck.scan(t.name, t.shape);
  validated_checkpoints().insert(std::move(key));
}

}  // namespace rooftop::inference
