#pragma once
// What a scenario drives, on any backend: a decoder with a KV cache for a batch of
// sequences. The CPU's (cpu_decoder.cpp) and the GPU's implement it; the scenarios
// (inference_instance.cpp) and the check against the reference (inference_check.cpp) are
// written once against it.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "suites/inference/decoder_weights.hpp"

namespace rooftop {
class StageRecorder;
}

namespace rooftop::inference {

class Decoder {
 public:
  virtual ~Decoder() = default;
  // `tokens_per_seq` new tokens of every sequence (tokens[b * tokens_per_seq + t]) at the
  // current cache length: appends them to the cache, writes the greedy next token of each
  // sequence to `next` (when the call returns, the work is done) and keeps the last
  // position's logits.
  virtual void forward(std::span<const std::int32_t> tokens, std::int64_t tokens_per_seq, std::span<std::int32_t> next) = 0;
  virtual std::int64_t length() const = 0;
  virtual void set_length(std::int64_t length) = 0;  // back to an earlier length (the cache beyond is stale)
  // The cache as if `length` tokens had been run: random keys and values of the right scale
  // (a decode step's cost does not depend on what the cache holds).
  virtual void fill_cache_randomly(std::int64_t length, std::uint64_t seed) = 0;
  // Sets up whatever a forward over `rows` tokens needs (matmul plans), outside the timing.
  virtual void prepare_rows(std::int64_t rows) = 0;
  virtual const std::vector<float>& logits() = 0;  // [batch, vocab], on the host
  virtual void poison_logits() = 0;                // NaN: a logit a forward does not write shows
  virtual std::string implementation() const = 0;
  virtual std::string implementation_label() const = 0;
  // Why a forward of `tokens_per_seq` tokens a sequence takes a generic attention path here
  // (a head dim, group or window the fast kernels lack); empty when it does not.
  virtual std::string generic_path(std::int64_t /*tokens_per_seq*/) const { return {}; }
  // Times every stage of the following forwards into `recorder` (null: none).
  virtual void set_recorder(StageRecorder* recorder) = 0;
  // Whether a forward of `tokens_per_seq` tokens a sequence applies SwiGLU inside the gate/up
  // projection (then it times no "swiglu" stage of its own).
  virtual bool swiglu_in_gate_up(std::int64_t /*tokens_per_seq*/) const { return false; }
  // Whether such a forward applies each layer's RMSNorm in the next projection's prologue
  // (then it times no attn_norm or mlp_norm stage of its own).
  virtual bool norms_in_projections(std::int64_t /*tokens_per_seq*/) const { return false; }
  // Whether, with those, the final RMSNorm is in the LM head's prologue too (else it keeps
  // its "final_norm" stage).
  virtual bool final_norm_in_head(std::int64_t tokens_per_seq) const { return norms_in_projections(tokens_per_seq); }
  // Whether such a forward applies RoPE and writes the cache in the qkv projection's
  // epilogue (then it times no "rope" stage of its own).
  virtual bool rope_in_qkv(std::int64_t /*tokens_per_seq*/) const { return false; }
  // Tensor parallel: the bytes of one element its all-reduces move (the CPU's: fp32).
  virtual double all_reduce_element_bytes() const { return 4.0; }
};

// Makes a backend's decoder: `batch` sequences up to `max_context` positions through the
// first `layers` layers (all: -1).
using DecoderFactory = std::function<std::unique_ptr<Decoder>(const DecoderWeights& weights, std::int64_t batch,
                                                              std::int64_t max_context, std::int64_t layers)>;

}  // namespace rooftop::inference
