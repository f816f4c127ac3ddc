#pragma once
// A decoder's configuration, read from the fields of a Hugging Face config.json of a family
// rooftop computes (model_family.hpp: Llama, Mistral, Qwen2): the shipped ones
// (models/*.json, compiled in) by name, any other by path.
#include <cstdint>
#include <filesystem>
#include <vector>
#include <string>
#include <string_view>

namespace rooftop::inference {

// How the rotary embedding's frequencies are rescaled for a longer context (config.json's
// rope_scaling, or rope_parameters in transformers 5), as transformers defines each type:
// "default" (none), "linear" (every frequency divided by factor), "llama3" (Llama 3.1's: low
// frequencies divided by factor, high ones kept, a smooth blend between), "dynamic" (NTK: the
// base grows only past max_position_embeddings, which no point exceeds: the default
// frequencies) and "yarn" (a ramp between divided and kept frequencies over the pairs, and
// cos and sin scaled by attention_factor). Other types are in values_not_implemented.
struct RopeScaling {
  std::string type = "default";
  double factor = 1, low_freq_factor = 1, high_freq_factor = 4;
  double original_max_positions = 8192;  // original_max_position_embeddings
  double beta_fast = 32, beta_slow = 1;  // yarn's ramp, in turns over the original context
  bool truncate = true;                  // yarn: the ramp's ends rounded to whole pairs
  double attention_factor = 1;           // yarn: the scale of cos and sin
  bool operator==(const RopeScaling&) const = default;
};

struct ModelConfig {
  std::string name;  // "llama-3.2-1b", or the file's stem
  std::int64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0, vocab = 0;
  std::int64_t max_positions = 0;
  double rope_theta = 10000, rms_eps = 1e-5;
  RopeScaling rope_scaling;
  bool tied_embeddings = false;
  std::string family = "llama";  // config.json's model_type (model_family.hpp)
  // Biases: on q, k and v; on o; on gate, up and down.
  bool qkv_bias = false, o_bias = false, mlp_bias = false;
  // Each layer's sliding window: a position attends itself and the window - 1 before it
  // (transformers' sliding_window); 0: every earlier position. Empty: no layer has one.
  std::vector<std::int64_t> layer_window;
  // Fields set to something the decoder does not compute ("rope_scaling of type llama3")
  // that change the values but not the work: harmless with random weights (what a
  // benchmark of cost needs), refused with a checkpoint's real weights (whose tokens
  // would be wrong). Fields that change the work are refused when the config is read.
  std::vector<std::string> values_not_implemented;

  // The head_dim / 2 inverse frequencies of the rotary embedding, rope_scaling applied: pair
  // i of a head turns by position x frequency i radians. Every decoder computes its angles
  // from these.
  std::vector<double> rope_inverse_frequencies() const;
  // What cos and sin are multiplied by (yarn's attention factor; 1 otherwise).
  double rope_amplitude() const { return rope_scaling.attention_factor; }
  // Layer l's window (0: none).
  std::int64_t window(std::int64_t layer) const {
    return layer_window.empty() ? 0 : layer_window[static_cast<std::size_t>(layer)];
  }
  // The first position a query at `position` attends in `layer`.
  std::int64_t first_attended(std::int64_t layer, std::int64_t position) const {
    const std::int64_t w = window(layer);
    return w > 0 && position >= w ? position - w + 1 : 0;
  }
  bool has_biases() const { return qkv_bias || o_bias || mlp_bias; }

  std::int64_t qkv_width() const { return (heads + 2 * kv_heads) * head_dim; }
  // Weights multiplied once per token: the projections, the MLP and the LM head (the
  // embedding is a row gather).
  double matmul_parameters() const;
  double parameters() const;  // every weight, the embedding once when tied
  // Bytes of one token's keys and values in one layer.
  double kv_bytes_per_token_layer(double element_bytes) const { return 2.0 * kv_heads * head_dim * element_bytes; }
};

// Throws InputError naming `origin` and the field on a missing, mistyped, out-of-range or
// inconsistent field, and on a field that changes the work in a way the decoder does not
// implement (another family or architecture, an activation other than silu, a window the
// family does not have).
ModelConfig parse_model_config(std::string_view json_text, std::string_view origin, std::string name);
// A shipped model ("tiny", "llama-3.2-1b", "llama-3.1-8b"), a config.json path, or a
// Hugging Face checkout's folder (its config.json).
ModelConfig load_model_config(std::string_view name_or_path);
// A checkout folder's *.safetensors files, sorted (its real weights); empty for a shipped
// name or a config.json alone (random weights).
std::vector<std::filesystem::path> checkpoint_files(std::string_view name_or_path);

}  // namespace rooftop::inference
