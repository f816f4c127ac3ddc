#pragma once
// The serve scenario's scheduler: continuous (iteration-level) batching over a paged KV
// cache. Each step (one forward of the decoder) takes, under a token budget:
//   1. one token of every running sequence past its prompt (decode first: a running
//      request's time per output token never waits behind a prompt);
//   2. the next chunk of each running sequence still in its prompt, oldest first (chunked
//      prefill: a long prompt is spread over steps instead of stalling the decodes);
//   3. new requests from the queue, first come first served, while a sequence slot, budget
//      and the blocks of the request's whole footprint (reserved at admission) are there;
//      the queue's head waits for them (no request overtakes it).
// Requests join and leave the batch at any step. docs/inference.md states the policy.
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "suites/inference/kv_block_pool.hpp"
#include "suites/inference/paged_decoder.hpp"

namespace rooftop::inference {

struct SchedulerConfig {
  std::int64_t token_budget = 512;  // new tokens a step, decode and prefill together
  std::int64_t max_sequences = 64;  // sequences in the batch at once (<= token_budget)
  std::int64_t page = 16;           // positions a cache block
  std::int64_t blocks = 0;          // cache blocks in the pool
};

struct ServeSequence {
  std::int64_t request = 0;
  std::int64_t prompt = 0, output = 0;
  std::vector<std::int32_t> tokens;  // the prompt, then each generated token
  std::int64_t prefilled = 0;        // prompt positions in the cache
  std::int64_t generated = 0;        // output tokens so far (the first comes with the prompt's last chunk)
  std::vector<std::int32_t> blocks;  // the block table
  std::int64_t reserved = 0;         // blocks reserved, not yet taken
};

// What one step runs: the decoder's chunks (decode chunks first, then prefill chunks) and
// their tokens, and which sequence each chunk is.
struct StepPlan {
  std::vector<SequenceChunk> chunks;
  std::vector<std::int32_t> tokens;
  std::vector<ServeSequence*> sequences;  // a chunk's sequence
  std::int64_t decode_tokens = 0, prefill_tokens = 0;
  std::int64_t sampled() const;
  bool empty() const { return chunks.empty(); }
};

// What a step's tokens did to a request.
struct TokenEvent {
  std::int64_t request = 0;
  std::int32_t token = 0;
  bool first = false;     // its first output token (end of its prompt)
  bool finished = false;  // its last
};

class ServeScheduler {
 public:
  explicit ServeScheduler(const SchedulerConfig& config);
  // A request into the queue: its prompt's token ids and its forced output length.
  void arrive(std::int64_t request, std::span<const std::int32_t> prompt, std::int64_t output);
  StepPlan plan();
  // After the forward: `next` holds one token a sampled chunk, in chunk order.
  std::vector<TokenEvent> complete(const StepPlan& plan, std::span<const std::int32_t> next);

  bool idle() const { return waiting_.empty() && running_.empty(); }
  std::int64_t waiting() const { return static_cast<std::int64_t>(waiting_.size()); }
  std::int64_t running() const { return static_cast<std::int64_t>(running_.size()); }
  const BlockPool& pool() const { return pool_; }
  const SchedulerConfig& config() const { return config_; }

 private:
  void add_chunk(StepPlan& plan, ServeSequence& s, std::int64_t start, std::int64_t count, bool prefill);

  SchedulerConfig config_;
  BlockPool pool_;
  std::deque<std::unique_ptr<ServeSequence>> waiting_;
  std::vector<std::unique_ptr<ServeSequence>> running_;  // in admission order
};

}  // namespace rooftop::inference
