#pragma once
// What the serve scenario drives: a decoder whose KV cache is a pool of fixed-size blocks
// (pages) and whose forward takes a ragged batch, each sequence at its own position with
// its own number of new tokens (a prefill chunk or one decode token). The CPU decoder
// implements it with the same kernels as its uniform forward (cpu_decoder.cpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "suites/inference/decoder.hpp"
#include "suites/inference/decoder_weights.hpp"

namespace rooftop::inference {

// One sequence's part of a ragged forward: `tokens` new tokens at positions start ..
// start + tokens - 1; position p lives in cache block blocks[p / page]. `sample`: the
// sequence's last new position gets logits and a greedy token (a decode step, or a
// prefill's last chunk); a prefill chunk before the last needs none.
struct SequenceChunk {
  std::int64_t start = 0;
  std::int64_t tokens = 0;
  std::span<const std::int32_t> blocks;
  bool sample = true;
};

class PagedDecoder {
 public:
  virtual ~PagedDecoder() = default;
  // `tokens`: every chunk's new tokens, chunk after chunk. Writes the chunks' keys and values
  // into their blocks and one greedy token per sampled chunk, in chunk order, to `next`.
  virtual void forward_chunks(std::span<const std::int32_t> tokens, std::span<const SequenceChunk> chunks,
                              std::span<std::int32_t> next) = 0;
  // Sets up every matmul a step of up to `token_budget` rows and `max_sequences` sampled
  // sequences can need, outside the timing (a step's row count varies from step to step).
  virtual void prepare_steps(std::int64_t token_budget, std::int64_t max_sequences) = 0;
  // The sampled chunks' logits of the last forward_chunks, [sampled][vocab], on the host;
  // poison_logits: NaN, so that a logit a forward does not write shows.
  virtual const std::vector<float>& logits() = 0;
  virtual void poison_logits() = 0;
  virtual std::int64_t cache_blocks() const = 0;
  virtual std::int64_t page() const = 0;
  virtual std::string implementation() const = 0;
  virtual std::string implementation_label() const = 0;
};

// Makes a backend's paged decoder: `blocks` cache blocks of `page` positions, sequences up
// to `max_context` positions, through the first `layers` layers (all: -1; a slice for checks).
using PagedDecoderFactory = std::function<std::unique_ptr<PagedDecoder>(
    const DecoderWeights& weights, std::int64_t blocks, std::int64_t page, std::int64_t max_context, std::int64_t layers)>;

// The uniform Decoder over a paged one (each of `batch` sequences owning its own blocks): what
// the reference check and a request run alone drive, so that a backend's serve path is
// checked on the paged decoder it measures.
DecoderFactory uniform_over_paged(PagedDecoderFactory paged, std::int64_t page);

}  // namespace rooftop::inference
