#include "suites/inference/serve_scheduler.hpp"

#include <algorithm>
#include <stdexcept>

namespace rooftop::inference {

std::int64_t StepPlan::sampled() const {
  return std::count_if(chunks.begin(), chunks.end(), [](const SequenceChunk& c) { return c.sample; });
}

ServeScheduler::ServeScheduler(const SchedulerConfig& config) : config_(config), pool_(config.blocks) {
  if (config.max_sequences <= 0 || config.token_budget < config.max_sequences || config.page <= 0)
    throw std::logic_error("a scheduler needs sequences, a token budget of at least one token each, and a page");
}

void ServeScheduler::arrive(std::int64_t request, std::span<const std::int32_t> prompt, std::int64_t output) {
  if (prompt.empty() || output <= 0) throw std::logic_error("a request needs a prompt and an output");
  if (blocks_for(static_cast<std::int64_t>(prompt.size()) + output - 1, config_.page) > pool_.total())
    throw std::logic_error("a request larger than the whole cache");
  auto s = std::make_unique<ServeSequence>();
  s->request = request;
  s->prompt = static_cast<std::int64_t>(prompt.size());
  s->output = output;
  s->tokens.assign(prompt.begin(), prompt.end());
  waiting_.push_back(std::move(s));
}

void ServeScheduler::add_chunk(StepPlan& plan, ServeSequence& s, std::int64_t start, std::int64_t count, bool prefill) {
  // The chunk's blocks now, from the sequence's reservation: never fails.
  while (static_cast<std::int64_t>(s.blocks.size()) * config_.page < start + count) {
    if (s.reserved <= 0) throw std::logic_error("a sequence outgrew its reservation");
    s.blocks.push_back(pool_.take());
    --s.reserved;
  }
  const bool sample = !prefill || start + count == s.prompt;
  plan.chunks.push_back({start, count, {}, sample});
  plan.sequences.push_back(&s);
  plan.tokens.insert(plan.tokens.end(), s.tokens.begin() + start, s.tokens.begin() + start + count);
  (prefill ? plan.prefill_tokens : plan.decode_tokens) += count;
}

StepPlan ServeScheduler::plan() {
  StepPlan plan;
  std::int64_t budget = config_.token_budget;
  for (auto& s : running_)  // 1. decode
    if (s->prefilled == s->prompt) {
      add_chunk(plan, *s, s->prompt + s->generated - 1, 1, false);
      --budget;
    }
  for (auto& s : running_)  // 2. prompts under way, oldest first
    if (s->prefilled < s->prompt && budget > 0) {
      const auto n = std::min(s->prompt - s->prefilled, budget);
      add_chunk(plan, *s, s->prefilled, n, true);
      budget -= n;
    }
  // 3. admission, first come first served: the head waits for a slot and its footprint.
  while (!waiting_.empty() && budget > 0 && running() < config_.max_sequences) {
    auto& head = *waiting_.front();
    const auto need = blocks_for(head.prompt + head.output - 1, config_.page);
    if (!pool_.reserve(need)) break;
    head.reserved = need;
    running_.push_back(std::move(waiting_.front()));
    waiting_.pop_front();
    auto& s = *running_.back();
    const auto n = std::min(s.prompt, budget);
    add_chunk(plan, s, 0, n, true);
    budget -= n;
  }
  // Block tables last: a sequence's blocks do not move until the step completes.
  for (std::size_t i = 0; i < plan.chunks.size(); ++i) plan.chunks[i].blocks = plan.sequences[i]->blocks;
  return plan;
}

std::vector<TokenEvent> ServeScheduler::complete(const StepPlan& plan, std::span<const std::int32_t> next) {
  std::vector<TokenEvent> events;
  std::size_t k = 0;
  for (std::size_t i = 0; i < plan.chunks.size(); ++i) {
    auto& s = *plan.sequences[i];
    const auto& c = plan.chunks[i];
    const bool prefill = s.prefilled < s.prompt;
    if (prefill) s.prefilled += c.tokens;
    if (!c.sample) continue;
    if (k >= next.size()) throw std::logic_error("fewer tokens than sampled chunks");
    const auto token = next[k++];
    s.tokens.push_back(token);
    ++s.generated;
    events.push_back({s.request, token, s.generated == 1, s.generated == s.output});
  }
  // Finished sequences leave the batch; their blocks and unused reservation go back.
  std::erase_if(running_, [&](const std::unique_ptr<ServeSequence>& s) {
    if (s->generated < s->output) return false;
    pool_.release(s->blocks, s->reserved);
    return true;
  });
  return events;
}

}  // namespace rooftop::inference
