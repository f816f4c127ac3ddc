#pragma once
// The serve scenario's engine: the scheduler (serve_scheduler.hpp) driving a paged decoder
// in real time. Requests arrive at their scheduled times, measured from the start of the run
// (the schedule is not paced by completions); steps run back to back while there is work;
// every token's time is kept.
#include <cstdint>
#include <vector>

#include "suites/inference/paged_decoder.hpp"
#include "suites/inference/serve_load.hpp"
#include "suites/inference/serve_metrics.hpp"
#include "suites/inference/serve_scheduler.hpp"

namespace rooftop::inference {

struct ServeRun {
  std::vector<RequestTiming> requests;            // in schedule order
  std::vector<StepSample> steps;
  std::vector<std::vector<std::int32_t>> tokens;  // each request's output tokens (keep_tokens)
  double wall_s = 0;
};

// `prompts[i]`: request i's prompt token ids (schedule[i].prompt of them). `real_time`:
// arrivals at their times; false: every request there at the start (the correctness check).
ServeRun run_serve(PagedDecoder& decoder, const SchedulerConfig& config, const std::vector<ScheduledRequest>& schedule,
                   const std::vector<std::vector<std::int32_t>>& prompts, bool real_time, bool keep_tokens);

// Request i's prompt: seeded token ids below `vocab`, from the schedule's seed (the same
// traffic on every machine).
std::vector<std::vector<std::int32_t>> serve_prompts(const std::vector<ScheduledRequest>& schedule, std::int64_t vocab,
                                                     std::uint64_t seed);

}  // namespace rooftop::inference
