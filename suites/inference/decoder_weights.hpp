#pragma once
// A decoder's weights on the host in the run's dtype, in Hugging Face's layout: each
// projection [out, in] row-major (nn.Linear keeps them so), q/k/v fused into one [qkv, hidden]
// matrix and gate/up into one [2 x intermediate, hidden]; norms in fp32.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "harness/dtype.hpp"
#include "suites/inference/model_config.hpp"

namespace rooftop::inference {

struct DecoderLayer {
  std::vector<float> attn_norm, mlp_norm;
  std::vector<std::uint8_t> qkv, o, gate_up, down;
};

struct DecoderWeights {
  ModelConfig config;
  Dtype dtype = Dtype::bf16;
  std::vector<std::uint8_t> embedding;  // [vocab, hidden]
  std::vector<std::uint8_t> lm_head;    // [vocab, hidden]; empty when tied to the embedding
  std::vector<float> final_norm;
  std::vector<DecoderLayer> layers;
  const std::uint8_t* head() const { return lm_head.empty() ? embedding.data() : lm_head.data(); }
};

// Seeded random weights, as serving benchmarks use dummy weights: projections uniform with
// standard deviation 1/sqrt(fan-in), so activations keep their scale through the layers
// and greedy tokens vary; norms 1; embeddings uniform in [-1, 1). `layers` of them (a
// slice for checks; the config's count by default). fp32 or bf16.
DecoderWeights random_decoder_weights(const ModelConfig& config, Dtype dtype, std::uint64_t seed, std::int64_t layers = -1);

// A Hugging Face checkpoint's weights (model.embed_tokens.weight, model.layers.N.self_attn.
// q_proj.weight, ...) from its .safetensors files, converted to `dtype`. Throws InputError
// naming the file and tensor when one is missing or its shape does not fit the config.
DecoderWeights load_decoder_weights(const ModelConfig& config, Dtype dtype,
                                    const std::vector<std::filesystem::path>& safetensors_files);

}  // namespace rooftop::inference
