#include "suites/inference/model_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/errors.hpp"
#include "suites/shape_data.hpp"

namespace rooftop::inference {
namespace {

std::int64_t positive(const nlohmann::json& j, const char* key, std::string_view origin) {
  if (!j.contains(key)) throw InputError(fmt::format("{}: model config has no '{}': give every Llama config field", origin, key));
  if (!j[key].is_number_integer() || j[key].get<std::int64_t>() <= 0)
    throw InputError(fmt::format("{}: model config field '{}' is not a positive integer", origin, key));
  return j[key].get<std::int64_t>();
}

}  // namespace

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
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}: model config is not valid JSON ({})", origin, e.what()));
  }
  if (!j.is_object()) throw InputError(fmt::format("{}: model config is not a JSON object", origin));
  ModelConfig c;
  c.name = std::move(name);
  c.hidden = positive(j, "hidden_size", origin);
  c.layers = positive(j, "num_hidden_layers", origin);
  c.heads = positive(j, "num_attention_heads", origin);
  c.kv_heads = j.contains("num_key_value_heads") ? positive(j, "num_key_value_heads", origin) : c.heads;
  c.intermediate = positive(j, "intermediate_size", origin);
  c.vocab = positive(j, "vocab_size", origin);
  c.max_positions = j.contains("max_position_embeddings") ? positive(j, "max_position_embeddings", origin) : 4096;
  c.head_dim = j.contains("head_dim") ? positive(j, "head_dim", origin) : c.hidden / c.heads;
  if (j.contains("rope_theta")) {
    if (!j["rope_theta"].is_number() || !(j["rope_theta"].get<double>() > 0))
      throw InputError(fmt::format("{}: model config field 'rope_theta' is not a positive number", origin));
    c.rope_theta = j["rope_theta"].get<double>();
  }
  if (j.contains("rms_norm_eps")) {
    if (!j["rms_norm_eps"].is_number() || !(j["rms_norm_eps"].get<double>() > 0))
      throw InputError(fmt::format("{}: model config field 'rms_norm_eps' is not a positive number", origin));
    c.rms_eps = j["rms_norm_eps"].get<double>();
  }
  if (j.contains("tie_word_embeddings")) {
    if (!j["tie_word_embeddings"].is_boolean())
      throw InputError(fmt::format("{}: model config field 'tie_word_embeddings' is not true or false", origin));
    c.tied_embeddings = j["tie_word_embeddings"].get<bool>();
  }
  if (j.contains("model_type") && j["model_type"] != "llama")
    throw InputError(fmt::format("{}: model_type {} is not llama: rooftop's decoder is the Llama architecture", origin,
                                 j["model_type"].dump()));
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
