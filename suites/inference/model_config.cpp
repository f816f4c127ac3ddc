#include "suites/inference/model_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/errors.hpp"
#include "suites/inference/safetensors.hpp"
#include "suites/shape_data.hpp"

namespace rooftop::inference {
namespace {

using nlohmann::json;

// Generous bounds (a real model's fields are far inside them) that keep the products the
// decoder forms of two of them inside 64 bits.
constexpr std::int64_t kMaxWidth = 1 << 20, kMaxLayers = 1 << 12, kMaxHeads = 1 << 14, kMaxVocab = 1 << 24,
                       kMaxPositions = 1 << 27;

std::int64_t positive(const json& j, const char* key, std::string_view origin, std::int64_t max) {
  if (!j.contains(key)) throw InputError(fmt::format("{}: model config has no '{}': give every Llama config field", origin, key));
  const auto& v = j[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() <= 0 || v.get<std::int64_t>() > max)
    throw InputError(fmt::format("{}: model config field '{}' is {}, not a positive integer up to {}", origin, key,
                                 v.dump(), max));
  return v.get<std::int64_t>();
}

// A real number in (0, max].
double positive_number(const json& v, const char* key, std::string_view origin, double max, std::string_view usual) {
  if (!v.is_number())
    throw InputError(fmt::format("{}: model config field '{}' is {}, not a number", origin, key, v.dump()));
  const double x = v.get<double>();
  if (!(x > 0 && x <= max))
    throw InputError(fmt::format("{}: model config field '{}' is {:g}, outside (0, {:g}]: give the model's own value ({})",
                                 origin, key, x, max, usual));
  return x;
}

bool flag(const json& j, const char* key, std::string_view origin) {
  if (!j.contains(key) || j[key].is_null()) return false;
  if (!j[key].is_boolean())
    throw InputError(fmt::format("{}: model config field '{}' is {}, not true or false", origin, key, j[key].dump()));
  return j[key].get<bool>();
}

[[noreturn]] void not_implemented(std::string_view origin, std::string_view field, std::string_view why) {
  throw InputError(fmt::format("{}: model config field {}: rooftop's decoder does not implement {}; it would time and "
                               "compute another model. Give a config without it",
                               origin, field, why));
}

// Fields that change the work: the decoder has no biases, attends to every earlier
// position and has the Llama causal-LM head.
void refuse_other_work(const json& j, std::string_view origin) {
  if (j.contains("architectures")) {
    const auto& a = j["architectures"];
    if (!a.is_array() || a.size() != 1 || a[0] != "LlamaForCausalLM")
      not_implemented(origin, fmt::format("'architectures' is {}", a.dump()), "another architecture than LlamaForCausalLM");
  }
  if (flag(j, "attention_bias", origin)) not_implemented(origin, "'attention_bias' is true", "attention biases");
  if (flag(j, "mlp_bias", origin)) not_implemented(origin, "'mlp_bias' is true", "MLP biases");
  const bool windowed = j.contains("sliding_window") && !j["sliding_window"].is_null() &&
                        !(j.contains("use_sliding_window") && j["use_sliding_window"] == false);
  if (windowed)
    not_implemented(origin, fmt::format("'sliding_window' is {}", j["sliding_window"].dump()), "sliding-window attention");
}

const json& member(const json& object, const char* key) {
  static const json none;
  return object.is_object() && object.contains(key) ? object[key] : none;
}

// One rope_scaling or rope_parameters object: the scaling of a type the decoders compute,
// another type noted in values_not_implemented.
void read_rope_scaling(const json& v, const char* key, std::string_view origin, ModelConfig& c) {
  const json& named = member(v, "rope_type").is_null() ? member(v, "type") : member(v, "rope_type");
  const json type = named.is_null() ? json("(none)") : named;
  if (type == "default") return;
  if (type != "linear" && type != "llama3") {
    c.values_not_implemented.push_back(fmt::format("rope scaling of type {} ({})", type.dump(), v.dump()));
    return;
  }
  const auto number = [&](const char* field, double max, std::string_view usual) {
    const json& x = member(v, field);
    if (x.is_null())
      throw InputError(fmt::format("{}: model config field '{}' of type {} has no '{}': give the model's own ({})", origin,
                                   key, type.dump(), field, usual));
    return positive_number(x, field, origin, max, usual);
  };
  RopeScaling s;
  s.type = type.get<std::string>();
  s.factor = number("factor", 1e6, "Llama 3.1's is 8");
  if (s.type == "llama3") {
    s.low_freq_factor = number("low_freq_factor", 1e6, "Llama 3.1's is 1");
    s.high_freq_factor = number("high_freq_factor", 1e6, "Llama 3.1's is 4");
    s.original_max_positions = number("original_max_position_embeddings", kMaxPositions, "Llama 3.1's is 8192");
    if (!(s.high_freq_factor > s.low_freq_factor))
      throw InputError(fmt::format("{}: model config field '{}': high_freq_factor {:g} is not above low_freq_factor {:g}: "
                                   "give the model's own (Llama 3.1's are 4 and 1)",
                                   origin, key, s.high_freq_factor, s.low_freq_factor));
  }
  if (c.rope_scaling.type != "default" && !(c.rope_scaling == s))
    throw InputError(fmt::format("{}: model config fields rope_scaling and rope_parameters give two different rope "
                                 "scalings: give one", origin));
  c.rope_scaling = s;
}

// The rotary embedding: transformers 4 writes rope_theta and rope_scaling (null, or an
// object with "rope_type" or "type"), transformers 5 one object, rope_parameters, with both.
void read_rope(const json& j, std::string_view origin, ModelConfig& c) {
  const json& parameters = member(j, "rope_parameters");
  const json& scaling = member(j, "rope_scaling");
  for (const auto& [key, v] : {std::pair{"rope_parameters", &parameters}, std::pair{"rope_scaling", &scaling}})
    if (!v->is_null() && !v->is_object())
      throw InputError(fmt::format("{}: model config field '{}' is {}, not an object or null", origin, key, v->dump()));
  const json& theta = j.contains("rope_theta") ? j["rope_theta"] : member(parameters, "rope_theta");
  if (!theta.is_null()) c.rope_theta = positive_number(theta, "rope_theta", origin, 1e12, "Llama's are 10000 to 500000");
  for (const auto& [key, v] : {std::pair{"rope_parameters", &parameters}, std::pair{"rope_scaling", &scaling}})
    if (!v->is_null()) read_rope_scaling(*v, key, origin, c);
  const json& partial =
      j.contains("partial_rotary_factor") ? j["partial_rotary_factor"] : member(parameters, "partial_rotary_factor");
  if (!partial.is_null() && partial != 1.0)
    c.values_not_implemented.push_back(fmt::format("partial_rotary_factor {} (rotary embedding on part of a head)", partial.dump()));
}

}  // namespace

std::vector<double> ModelConfig::rope_inverse_frequencies() const {
  const RopeScaling& s = rope_scaling;
  const double pi = 3.14159265358979323846;
  std::vector<double> out(static_cast<std::size_t>(head_dim / 2));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double unscaled = std::pow(rope_theta, -2.0 * static_cast<double>(i) / static_cast<double>(head_dim));
    double f = unscaled;
    if (s.type == "linear") f = unscaled / s.factor;
    if (s.type == "llama3") {
      // Turns the pair makes over the original context: few (a long wavelength, the context
      // the model was not trained on) are slowed by factor, many kept, blended between.
      const double turns = s.original_max_positions * unscaled / (2 * pi);
      const double kept = std::clamp((turns - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor), 0.0, 1.0);
      f = (1 - kept) * unscaled / s.factor + kept * unscaled;
    }
    out[i] = f;
  }
  return out;
}

double ModelConfig::matmul_parameters() const {
  const double h = static_cast<double>(hidden), d = static_cast<double>(head_dim);
  const double per_layer = h * static_cast<double>(qkv_width()) + static_cast<double>(heads) * d * h +
                           3.0 * h * static_cast<double>(intermediate);
  return static_cast<double>(layers) * per_layer + h * static_cast<double>(vocab);
}

double ModelConfig::parameters() const {
  const double norms = static_cast<double>(2 * layers + 1) * static_cast<double>(hidden);
  const double embedding = tied_embeddings ? 0.0 : static_cast<double>(hidden) * static_cast<double>(vocab);
  return matmul_parameters() + embedding + norms;
}

ModelConfig parse_model_config(std::string_view text, std::string_view origin, std::string name) {
  if (is_git_lfs_pointer(text))
    throw InputError(fmt::format("{}: is a Git LFS pointer file, not the model config: {}", origin, kGitLfsAdvice));
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // a syntax error, or a number too large for a double (1e400)
    throw InputError(fmt::format("{}: model config is not valid JSON ({})", origin, e.what()));
  }
  if (!j.is_object()) throw InputError(fmt::format("{}: model config is not a JSON object", origin));
  if (j.contains("model_type") && j["model_type"] != "llama")
    throw InputError(fmt::format("{}: model_type {} is not llama: rooftop's decoder is the Llama architecture", origin,
                                 j["model_type"].dump()));
  ModelConfig c;
  c.name = std::move(name);
  c.hidden = positive(j, "hidden_size", origin, kMaxWidth);
  c.layers = positive(j, "num_hidden_layers", origin, kMaxLayers);
  c.heads = positive(j, "num_attention_heads", origin, kMaxHeads);
  c.kv_heads = j.contains("num_key_value_heads") ? positive(j, "num_key_value_heads", origin, kMaxHeads) : c.heads;
  c.intermediate = positive(j, "intermediate_size", origin, kMaxWidth);
  c.vocab = positive(j, "vocab_size", origin, kMaxVocab);
  c.max_positions = j.contains("max_position_embeddings") ? positive(j, "max_position_embeddings", origin, kMaxPositions) : 4096;
  c.head_dim = j.contains("head_dim") ? positive(j, "head_dim", origin, kMaxWidth) : c.hidden / c.heads;
  read_rope(j, origin, c);
  if (j.contains("rms_norm_eps"))
    c.rms_eps = positive_number(j["rms_norm_eps"], "rms_norm_eps", origin, 1.0, "Llama's is 1e-05 or 1e-06");
  if (j.contains("tie_word_embeddings")) {
    if (!j["tie_word_embeddings"].is_boolean())
      throw InputError(fmt::format("{}: model config field 'tie_word_embeddings' is not true or false", origin));
    c.tied_embeddings = j["tie_word_embeddings"].get<bool>();
  }
  refuse_other_work(j, origin);
  for (const char* key : {"hidden_act", "hidden_activation"})
    if (j.contains(key) && j[key] != "silu")
      c.values_not_implemented.push_back(fmt::format("{} {} (the decoder's MLP is SwiGLU: silu)", key, j[key].dump()));
  if (c.heads % c.kv_heads != 0)
    throw InputError(fmt::format("{}: {} attention heads do not divide into {} key/value heads", origin, c.heads, c.kv_heads));
  if (!j.contains("head_dim") && c.hidden % c.heads != 0)
    throw InputError(fmt::format("{}: hidden_size {} is not a multiple of {} heads: give head_dim", origin, c.hidden, c.heads));
  if (c.head_dim % 2 != 0)
    throw InputError(fmt::format("{}: head_dim {} is odd: rotary embeddings rotate pairs", origin, c.head_dim));
  return c;
}

ModelConfig load_model_config(std::string_view name_or_path) {
  const std::string name(name_or_path);
  if (const auto text = embedded_file("inference", "models/" + name + ".json"); !text.empty())
    return parse_model_config(text, "suites/inference/models/" + name + ".json", name);
  if (name.find('/') == std::string::npos && !name.ends_with(".json")) {
    std::vector<std::string> known;
    for (auto f : embedded_files("inference", "models")) known.emplace_back(f.substr(0, f.size() - 5));
    throw InputError(fmt::format("unknown model '{}': choose one of {}, or give the path of a Hugging Face config.json",
                                 name, fmt::join(known, ", ")));
  }
  if (std::filesystem::is_directory(name)) {
    const auto config = std::filesystem::path(name) / "config.json";
    auto c = load_model_config(config.string());
    c.name = std::filesystem::path(name).lexically_normal().filename().string();
    if (c.name.empty()) c.name = std::filesystem::path(name).lexically_normal().parent_path().filename().string();
    return c;
  }
  std::ifstream in(name);
  if (!in) throw InputError(fmt::format("{}: cannot read the model config (missing or unreadable)", name));
  std::stringstream text;
  text << in.rdbuf();
  // A Hugging Face checkout names its file config.json: the model is its folder.
  const std::filesystem::path path(name);
  const auto stem = path.stem().string() == "config" && path.has_parent_path() ? path.parent_path().filename().string()
                                                                               : path.stem().string();
  return parse_model_config(text.str(), name, stem);
}

std::vector<std::filesystem::path> checkpoint_files(std::string_view name_or_path) {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path dir(name_or_path);
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".safetensors") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace rooftop::inference
