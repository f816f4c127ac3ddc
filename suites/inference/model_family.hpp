#pragma once
// A model family as data. rooftop's decoders compute one body: RMSNorm, rotary attention
// with grouped keys and values, a SwiGLU MLP, a (tied or untied) LM head. A family is that
// body with some switches: which projections carry biases and which config field says so,
// and how a sliding window applies. Adding a family that is this body is one entry in
// model_family.cpp and its fixture (tests/fixtures/make_hf_fixtures.py); a family with
// other layers (Gemma's scaled embedding and GeLU, Phi's partial rotary) is refused by name.
#include <span>
#include <string_view>

namespace rooftop::inference {

// How config.json's sliding_window applies where its layer_types does not say.
enum class WindowRule {
  none,                   // the family has no window (a sliding_window is refused)
  every_layer,            // Mistral: every layer when sliding_window is set
  from_max_window_layers  // Qwen2: layers max_window_layers and above when use_sliding_window is true
};

struct ModelFamily {
  std::string_view model_type;    // config.json's model_type
  std::string_view architecture;  // its architectures[0]
  // A boolean field that puts biases on q, k, v and o (Llama's attention_bias); empty: none.
  std::string_view attention_bias_field;
  bool qkv_bias_always = false;  // q, k and v always carry biases, o none (Qwen2)
  std::string_view mlp_bias_field;  // a boolean field that puts biases on gate, up and down
  WindowRule window = WindowRule::none;
};

std::span<const ModelFamily> model_families();
// The family of a config.json's model_type (null when rooftop has none).
const ModelFamily* find_model_family(std::string_view model_type);

}  // namespace rooftop::inference
