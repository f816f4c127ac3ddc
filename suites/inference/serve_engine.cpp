#include "suites/inference/serve_engine.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "harness/errors.hpp"
#include "harness/measurement_loops.hpp"
#include "harness/random_fill.hpp"

namespace rooftop::inference {
namespace {

using Clock = std::chrono::steady_clock;

// Waits are slept in slices of at most this: a Ctrl-C is seen within one.
constexpr double kWaitSliceS = 0.1;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Sleeps until `arrival_s` after t0, in slices: one Ctrl-C ends a wait of hours (it was
// seen only when the repetition ended), and no arrival is ever added to the clock's time
// point (1e300 s overflowed it: the sleep returned at once and the engine spun a core).
void wait_for_arrival(Clock::time_point t0, double arrival_s) {
  for (;;) {
    if (g_interrupted.load()) throw Interrupted("interrupted (Ctrl-C) while waiting for the next request's arrival");
    const double left = arrival_s - seconds_since(t0);
    if (!(left > 0)) return;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, kWaitSliceS)));
  }
}

}  // namespace

std::vector<std::vector<std::int32_t>> serve_prompts(const std::vector<ScheduledRequest>& schedule, std::int64_t vocab,
                                                     std::uint64_t seed) {
  std::vector<std::vector<std::int32_t>> prompts(schedule.size());
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const auto stream = splitmix64(seed ^ splitmix64(i + 1));
    for (std::int64_t t = 0; t < schedule[i].prompt; ++t)
      prompts[i].push_back(static_cast<std::int32_t>(uniform_at(stream, static_cast<std::uint64_t>(t), 0, static_cast<double>(vocab))));
  }
  return prompts;
}

ServeRun run_serve(PagedDecoder& decoder, const SchedulerConfig& config, const std::vector<ScheduledRequest>& schedule,
                   const std::vector<std::vector<std::int32_t>>& prompts, bool real_time, bool keep_tokens) {
  ServeScheduler scheduler(config);
  ServeRun run;
  const std::size_t n = schedule.size();
  run.requests.resize(n);
  if (keep_tokens) run.tokens.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    run.requests[i].arrival_s = real_time ? schedule[i].arrival_s : 0;
    run.requests[i].warmup = schedule[i].warmup;
  }
  std::vector<std::int32_t> next(static_cast<std::size_t>(config.max_sequences));
  std::size_t arrived = 0, finished = 0;
  const auto t0 = Clock::now();
  const auto elapsed = [&] { return seconds_since(t0); };
  while (finished < n) {
    const double now = elapsed();
    for (; arrived < n && (!real_time || schedule[arrived].arrival_s <= now); ++arrived)
      scheduler.arrive(static_cast<std::int64_t>(arrived), prompts[arrived], schedule[arrived].output);
    if (scheduler.idle()) {  // nothing to run until the next arrival
      if (arrived == n) throw std::logic_error("the scheduler is idle with requests unfinished and none to come");
      wait_for_arrival(t0, schedule[arrived].arrival_s);
      continue;
    }
    const auto plan = scheduler.plan();
    if (plan.empty()) throw std::logic_error("the scheduler planned an empty step with requests waiting");
    const auto sampled = static_cast<std::size_t>(plan.sampled());
    const double started = elapsed();
    decoder.forward_chunks(plan.tokens, plan.chunks, std::span(next).first(sampled));
    const double t = elapsed();
    std::int64_t cached = 0;
    for (const auto& c : plan.chunks) cached += c.start;
    for (const auto& e : scheduler.complete(plan, std::span(next).first(sampled))) {
      const auto r = static_cast<std::size_t>(e.request);
      run.requests[r].token_s.push_back(t);
      if (keep_tokens) run.tokens[r].push_back(e.token);
      if (e.finished) ++finished;
    }
    run.steps.push_back({t, static_cast<std::int64_t>(plan.chunks.size()), plan.decode_tokens + plan.prefill_tokens,
                         scheduler.pool().in_use(), scheduler.waiting(), static_cast<std::int64_t>(arrived - finished),
                         t - started, plan.prefill_tokens == 0, cached});
  }
  run.wall_s = elapsed();
  return run;
}

}  // namespace rooftop::inference
