#include "suites/inference/model_family.hpp"

#include <array>

namespace rooftop::inference {

namespace {
// As transformers defines them (models/llama, mistral and qwen2: configuration and modeling).
constexpr std::array kFamilies{
    ModelFamily{"llama", "LlamaForCausalLM", "attention_bias", false, "mlp_bias", WindowRule::none},
    ModelFamily{"mistral", "MistralForCausalLM", "", false, "", WindowRule::every_layer},
    ModelFamily{"qwen2", "Qwen2ForCausalLM", "", true, "", WindowRule::from_max_window_layers},
};
}  // namespace

std::span<const ModelFamily> model_families() { return kFamilies; }

const ModelFamily* find_model_family(std::string_view model_type) {
  for (const auto& f : kFamilies)
    if (f.model_type == model_type) return &f;
  return nullptr;
}

}  // namespace rooftop::inference
