#pragma once
// A decoder's weights on the host in the run's dtype, in Hugging Face's layout: each
// projection [out, in] row-major (nn.Linear keeps them so), q/k/v fused into one [qkv, hidden]
// matrix and gate/up into one [2 x intermediate, hidden]; norms in fp32.
//
// fp8 (the CUDA backend's): every projection and the LM head in e4m3 with a per-tensor
// weight scale, and a static per-tensor scale for the activation each one reads (as fp8
// checkpoints carry them: weight_scale and input_scale); the embedding stays bf16 (a row
// gather reads one row a token), and a tied LM head gets an e4m3 copy of it.
#include <cstdint>
#include <memory>
#include <filesystem>
#include <optional>
#include <vector>

#include "harness/dtype.hpp"
#include "suites/inference/model_config.hpp"
#include "suites/inference/tensor_parallel.hpp"

namespace rooftop::inference {

// y = (x quantised with `input`) x (W stored / `weight`)^T x input x weight. Both 0 for
// the wider dtypes, whose projections are not scaled.
struct Fp8Scales {
  float weight = 0, input = 0;
};

struct DecoderLayer {
  std::vector<float> attn_norm, mlp_norm;
  // Biases in fp32, fused as the projections are ([q; k; v], [gate; up]); empty where the
  // config has none (ModelConfig::qkv_bias, o_bias, mlp_bias).
  std::vector<float> qkv_bias, o_bias, gate_up_bias, down_bias;
  std::vector<std::uint8_t> qkv, o, gate_up, down;
  Fp8Scales qkv_scale, o_scale, gate_up_scale, down_scale;
};

struct DecoderWeights {
  ModelConfig config;
  Dtype dtype = Dtype::bf16;
  std::vector<std::uint8_t> embedding;  // [vocab, hidden]
  std::vector<std::uint8_t> lm_head;    // [vocab, hidden]; empty when tied to the embedding (never for fp8)
  std::vector<float> final_norm;
  std::vector<DecoderLayer> layers;
  Fp8Scales head_scale;
  // A tensor-parallel rank's shard (shard_decoder_weights, random_shard_weights): the whole
  // model's config and the rank's slice, `config` being the rank's. Empty: the whole model.
  struct Shard {
    ModelConfig model;
    TensorParallelSlice slice;
  };
  std::optional<Shard> shard;
  const ModelConfig& model_config() const { return shard ? shard->model : config; }
  const std::uint8_t* head() const { return lm_head.empty() ? embedding.data() : lm_head.data(); }
  // The embedding's dtype: the run's, bf16 for fp8.
  Dtype embedding_dtype() const { return dtype == Dtype::fp8 ? Dtype::bf16 : dtype; }
};

// Seeded random weights, as serving benchmarks use dummy weights: projections uniform with
// standard deviation 1/sqrt(fan-in), so activations keep their scale through the layers
// and greedy tokens vary; norms 1; embeddings uniform in [-1, 1). `layers` of them (a
// slice for checks; the config's count by default). fp32, bf16, or fp8: bf16 weights
// quantised by quantize_to_fp8.
DecoderWeights random_decoder_weights(const ModelConfig& config, Dtype dtype, std::uint64_t seed, std::int64_t layers = -1);

// A Hugging Face checkpoint's weights (model.embed_tokens.weight, model.layers.N.self_attn.
// q_proj.weight, ...) from its .safetensors files, converted to `dtype`. Throws InputError
// naming the file and tensor when one is missing or its shape does not fit the config, and,
// for a checkpoint validate_checkpoint has not read in this process, when a value is not
// finite or a tensor is one the decoder has no use for (validated: not checked again).
// fp8: read as bf16, then quantised by quantize_to_fp8.
DecoderWeights load_decoder_weights(const ModelConfig& config, Dtype dtype,
                                    const std::vector<std::filesystem::path>& safetensors_files);

// Everything a run needs from a checkpoint, checked before any point is measured: the
// config's fields that the decoder does not compute, each file's header, every tensor the
// decoder reads (once across the shards, as the index maps it, its shape and dtype) and
// every value finite. Reads the whole checkpoint once a process: a later call for the same
// files (unchanged: path, size and time) and tensors returns at once, and
// load_decoder_weights does not check them again. Throws InputError naming the file and
// tensor. Nothing to check for an empty list (random weights).
void validate_checkpoint(const ModelConfig& config, const std::vector<std::filesystem::path>& safetensors_files);

// bf16 weights to fp8: each matrix scaled so its largest magnitude maps to e4m3's 448
// (round to nearest even), then the activations' static scales calibrated in order, layer
// after layer, on a forward of the reference decoder over a seeded prompt of
// `calibration_tokens` (each scale maps the largest magnitude seen to 448; larger values
// later saturate, as with a checkpoint's input_scale).
DecoderWeights quantize_to_fp8(DecoderWeights bf16, std::uint64_t seed, std::int64_t calibration_tokens = 8);

// A tensor-parallel rank's shard of the first `layers` layers (all: -1) of `full`
// (decoder_weights_shard.cpp): config rank_config(full.config, slice); q/k/v rows of its heads
// and kv heads, gate/up rows and down columns of its intermediate range, o_proj columns of its
// heads, LM head rows of its vocabulary (a copy of the embedding's where tied: lm_head is never
// empty); the embedding, the norms and the row-parallel biases (o, down: added once, after the
// all-reduce) whole. fp8 scales are per tensor: a slice keeps them.
DecoderWeights shard_decoder_weights(const DecoderWeights& full, const TensorParallelSlice& slice, std::int64_t layers = -1);
// A decoder's slice as rank `rank` of `tp` (tp 1: the whole model): the weights' own where
// they are a shard already (random_shard_weights; throws std::logic_error where that is
// another rank's), else computed from their config.
TensorParallelSlice decoder_slice(const DecoderWeights& weights, int tp, int rank);
// The shard a decoder slices from whole weights (null where tp is 1 or they are a shard already).
std::unique_ptr<const DecoderWeights> decoder_shard(const DecoderWeights& weights, const TensorParallelSlice& slice,
                                                    std::int64_t layers);
// The shard random_decoder_weights(config, dtype, seed, layers) sliced would give, drawn
// alone (the draws are counter-based: each element from its index in the whole matrix), so a
// rank never holds the whole model: the same values, a rank's memory. fp8 (whose scales are
// the whole tensors' and calibrated on the whole model): drawn whole, then sliced.
DecoderWeights random_shard_weights(const ModelConfig& config, Dtype dtype, std::uint64_t seed,
                                    const TensorParallelSlice& slice, std::int64_t layers = -1);

}  // namespace rooftop::inference
