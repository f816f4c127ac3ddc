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
#include "harness/input_file.hpp"
#include "harness/printable_text.hpp"
#include "suites/inference/model_family.hpp"
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
                                 quote_json(v), max));
  return v.get<std::int64_t>();
}

// A real number in (0, max].
double positive_number(const json& v, const char* key, std::string_view origin, double max, std::string_view usual) {
  if (!v.is_number())
    throw InputError(fmt::format("{}: model config field '{}' is {}, not a number", origin, key, quote_json(v)));
  const double x = v.get<double>();
  if (!(x > 0 && x <= max))
    throw InputError(fmt::format("{}: model config field '{}' is {:g}, outside (0, {:g}]: give the model's own value ({})",
                                 origin, key, x, max, usual));
  return x;
}

bool flag(const json& j, const char* key, std::string_view origin) {
  if (!j.contains(key) || j[key].is_null()) return false;
  if (!j[key].is_boolean())
    throw InputError(fmt::format("{}: model config field '{}' is {}, not true or false", origin, key, quote_json(j[key])));
  return j[key].get<bool>();
}

[[noreturn]] void not_implemented(std::string_view origin, std::string_view field, std::string_view why) {
  throw InputError(fmt::format("{}: model config field {}: rooftop's decoder does not implement {}; it would time and "
                               "compute another model. Give a config without it",
                               origin, field, why));
}

const json& member(const json& object, const char* key) {
  static const json none;
  return object.is_object() && object.contains(key) ? object[key] : none;
}

// The non-negative integer `key` of a config (absent or null: `fallback`).
std::int64_t optional_count(const json& j, const char* key, std::string_view origin, std::int64_t fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  const auto& v = j[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > kMaxPositions)
    throw InputError(fmt::format("{}: model config field '{}' is {}, not a count from 0 to {}", origin, key, quote_json(v),
                                 kMaxPositions));
  return v.get<std::int64_t>();
}

// The switches of the config's family: its biases and each layer's sliding window.
void read_family_switches(const json& j, const ModelFamily& f, std::string_view origin, ModelConfig& c) {
  if (j.contains("architectures")) {
    const auto& a = j["architectures"];
    if (!a.is_array() || a.size() != 1 || a[0] != f.architecture)
      not_implemented(origin, fmt::format("'architectures' is {}", quote_json(a)),
                      fmt::format("another architecture than {} for model_type {}", f.architecture, f.model_type));
  }
  // A bias field the family does not read would be ignored by transformers too; refuse it,
  // never time a model that is not the one asked for.
  for (const char* key : {"attention_bias", "mlp_bias"}) {
    const bool read = key == f.attention_bias_field || key == f.mlp_bias_field;
    if (flag(j, key, origin) && !read)
      not_implemented(origin, fmt::format("'{}' is true", key), fmt::format("{} for model_type {}", key, f.model_type));
  }
  if (!f.attention_bias_field.empty() && flag(j, std::string(f.attention_bias_field).c_str(), origin))
    c.qkv_bias = c.o_bias = true;
  if (f.qkv_bias_always) c.qkv_bias = true;
  if (!f.mlp_bias_field.empty() && flag(j, std::string(f.mlp_bias_field).c_str(), origin)) c.mlp_bias = true;

  // Sliding windows: layer_types (transformers 5) says which layers; otherwise the family's rule.
  const std::int64_t window = optional_count(j, "sliding_window", origin, 0);
  std::vector<bool> sliding(static_cast<std::size_t>(c.layers), false);
  if (j.contains("layer_types") && !j["layer_types"].is_null()) {
    const auto& types = j["layer_types"];
    if (!types.is_array() || types.size() != sliding.size())
      throw InputError(fmt::format("{}: model config field 'layer_types' is not a list of {} layer types", origin, c.layers));
    for (std::size_t l = 0; l < sliding.size(); ++l) {
      if (types[l] == "sliding_attention") sliding[l] = true;
      else if (types[l] != "full_attention")
        not_implemented(origin, fmt::format("'layer_types' [{}] is {}", l, quote_json(types[l])),
                        "layers other than full_attention and sliding_attention");
    }
  } else if (window > 0 && f.window == WindowRule::every_layer) {
    sliding.assign(sliding.size(), true);
  } else if (window > 0 && f.window == WindowRule::from_max_window_layers && flag(j, "use_sliding_window", origin)) {
    const std::int64_t from = optional_count(j, "max_window_layers", origin, 28);  // Qwen2Config's default
    for (std::int64_t l = from; l < c.layers; ++l) sliding[static_cast<std::size_t>(l)] = true;
  }
  const bool any = std::find(sliding.begin(), sliding.end(), true) != sliding.end();
  const bool asked = window > 0 && !(j.contains("use_sliding_window") && j["use_sliding_window"] == false);
  if (f.window == WindowRule::none && (any || asked))
    not_implemented(origin, fmt::format("'sliding_window' is {}", quote_json(j.value("sliding_window", json()))),
                    fmt::format("sliding-window attention for model_type {}", f.model_type));
  if (!any) return;
  if (window <= 0)
    throw InputError(fmt::format("{}: model config's layer_types has sliding_attention layers but 'sliding_window' is {}: "
                                 "give the window's length", origin, quote_json(j.value("sliding_window", json()))));
  c.layer_window.assign(sliding.size(), 0);
  for (std::size_t l = 0; l < sliding.size(); ++l)
    if (sliding[l]) c.layer_window[l] = window;
}

// yarn's fields (transformers' _compute_yarn_parameters): the ramp's ends in turns over the
// original context, and the attention factor, given or from factor (and DeepSeek's mscales).
void read_yarn(const json& v, const char* key, std::string_view origin, const ModelConfig& c, RopeScaling& s) {
  const auto optional = [&](const char* field, double fallback) {
    const json& x = member(v, field);
    return x.is_null() ? fallback : positive_number(x, field, origin, 1e6, fmt::format("from the model's {}", key));
  };
  s.original_max_positions = optional("original_max_position_embeddings", static_cast<double>(c.max_positions));
  s.beta_fast = optional("beta_fast", 32);
  s.beta_slow = optional("beta_slow", 1);
  const json& truncate = member(v, "truncate");
  if (!truncate.is_null() && !truncate.is_boolean())
    throw InputError(fmt::format("{}: model config field '{}' truncate is {}, not true or false", origin, key, quote_json(truncate)));
  s.truncate = truncate.is_null() || truncate.get<bool>();
  const auto mscale_of = [](double scale, double m) { return scale <= 1 ? 1.0 : 0.1 * m * std::log(scale) + 1.0; };
  const double mscale = optional("mscale", 0), mscale_all_dim = optional("mscale_all_dim", 0);
  s.attention_factor = mscale > 0 && mscale_all_dim > 0 ? mscale_of(s.factor, mscale) / mscale_of(s.factor, mscale_all_dim)
                                                        : mscale_of(s.factor, 1);
  s.attention_factor = optional("attention_factor", s.attention_factor);
}

// One rope_scaling or rope_parameters object: the scaling of a type the decoders compute,
// another type noted in values_not_implemented.
void read_rope_scaling(const json& v, const char* key, std::string_view origin, ModelConfig& c) {
  const bool v5_key = !member(v, "rope_type").is_null();
  const json& named = v5_key ? member(v, "rope_type") : member(v, "type");
  // A type that is not a name, or none beside the scaling's fields, is a mistyped config
  // (transformers fails on it too), refused with or without weights (issue 52, N12: both ran
  // as "another rope type" on random weights). rope_parameters holding rope_theta alone is
  // the default rotary embedding.
  if (!named.is_null() && !named.is_string())
    throw InputError(fmt::format("{}: model config field '{}' {} is {}, not the name of a rope type (default, linear, "
                                 "llama3, dynamic, yarn, ...)",
                                 origin, key, v5_key ? "rope_type" : "type", quote_json(named)));
  if (named.is_null()) {
    for (const auto& [field, value] : v.items())
      if (field != "rope_theta" && field != "partial_rotary_factor" && field != "rope_type" && field != "type")
        throw InputError(fmt::format("{}: model config field '{}' has '{}' but no 'rope_type': give the scaling's type "
                                     "(linear, llama3, dynamic, yarn, ...), or null for none",
                                     origin, key, printable_text(field.substr(0, 40))));
    return;
  }
  const json& type = named;
  if (type == "default") return;
  if (type != "linear" && type != "llama3" && type != "dynamic" && type != "yarn") {
    c.values_not_implemented.push_back(fmt::format("rope scaling of type {} ({})", quote_json(type), quote_json(v)));
    return;
  }
  const auto number = [&](const char* field, double max, std::string_view usual) {
    const json& x = member(v, field);
    if (x.is_null())
      throw InputError(fmt::format("{}: model config field '{}' of type {} has no '{}': give the model's own ({})", origin,
                                   key, quote_json(type), field, usual));
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
  if (s.type == "yarn") read_yarn(v, key, origin, c, s);
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
  // A fraction of the head, (0, 1]: a string or 0 is a mistyped config, refused with or
  // without weights (issue 52, N12: "0.5" ran).
  if (!partial.is_null() &&
      positive_number(partial, "partial_rotary_factor", origin, 1.0, "1, the whole head, for Llama") != 1.0)
    c.values_not_implemented.push_back(fmt::format("partial_rotary_factor {} (rotary embedding on part of a head)", quote_json(partial)));
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
    if (s.type == "yarn") {
      // A ramp over the pairs between kept (extrapolated) and divided (interpolated)
      // frequencies: pairs that turn more than beta_fast times over the original context
      // are kept, fewer than beta_slow divided by factor.
      const double dim = static_cast<double>(head_dim);
      const auto pair_of_turns = [&](double turns) {
        return dim * std::log(s.original_max_positions / (turns * 2 * pi)) / (2 * std::log(rope_theta));
      };
      double low = pair_of_turns(s.beta_fast), high = pair_of_turns(s.beta_slow);
      if (s.truncate) low = std::floor(low), high = std::ceil(high);
      low = std::max(low, 0.0);
      high = std::min(high, dim - 1);
      if (low == high) high += 0.001;
      const double divided = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
      f = unscaled / s.factor * divided + unscaled * (1 - divided);
    }
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
  const json j = parse_json_input(text, origin, "model config");
  if (!j.is_object()) throw InputError(fmt::format("{}: model config is not a JSON object", origin));
  const json type = j.contains("model_type") ? j["model_type"] : json("llama");
  const ModelFamily* family = type.is_string() ? find_model_family(type.get<std::string>()) : nullptr;
  if (!family) {
    std::vector<std::string_view> known;
    for (const auto& f : model_families()) known.push_back(f.model_type);
    throw InputError(fmt::format("{}: model config field 'model_type' is {}: rooftop's decoders compute the families {} "
                                 "(docs/inference.md says what a config may contain)",
                                 origin, quote_json(type), fmt::join(known, ", ")));
  }
  ModelConfig c;
  c.name = std::move(name);
  c.family = family->model_type;
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
  read_family_switches(j, *family, origin, c);
  for (const char* key : {"hidden_act", "hidden_activation"})
    if (j.contains(key) && j[key] != "silu")
      not_implemented(origin, fmt::format("'{}' is {}", key, quote_json(j[key])), "an MLP activation other than silu (SwiGLU)");
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
  const std::string text = read_input_file(name, "model config");
  // A Hugging Face checkout names its file config.json: the model is its folder.
  const std::filesystem::path path(name);
  const auto stem = path.stem().string() == "config" && path.has_parent_path() ? path.parent_path().filename().string()
                                                                               : path.stem().string();
  return parse_model_config(text, name, stem);
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
