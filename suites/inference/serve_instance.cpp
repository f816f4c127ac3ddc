// A serve point: the load served in real time, a repetition a whole schedule.
#include "suites/inference/serve_instance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <optional>

#include "harness/errors.hpp"
#include "suites/inference/inference_check.hpp"
#include "suites/inference/inference_instance.hpp"

namespace rooftop::inference {
namespace {

// The served-equivalence check's requests: the schedule's first few, short enough for any
// model on a CPU, served through a small budget and cache so that prompts are chunked,
// requests join and leave mid-batch, the queue waits for blocks and freed blocks are reused.
constexpr std::size_t kCheckRequests = 6;
constexpr std::int64_t kCheckPrompt = 40, kCheckOutput = 8;
// Two logits this close, relative to the row's largest magnitude, are a tie in bf16's
// rounding (8 significant bits, sums over thousands of products).
constexpr float kNearTie = 1e-2f;

nlohmann::ordered_json percentiles_json(const Percentiles& p) { return {{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}}; }

}  // namespace

Correctness check_served_tokens(const DecoderWeights& weights, PagedDecoder& paged, const SchedulerConfig& config,
                                const std::vector<ScheduledRequest>& requests, const DecoderFactory& solo, std::uint64_t seed) {
  const auto prompts = serve_prompts(requests, weights.config.vocab, seed);
  const auto served = run_serve(paged, config, requests, prompts, false, true);
  Correctness c;
  c.tolerance = fmt::format("each request's greedy tokens served equal to the request alone; a token that differs only "
                            "where the request alone's top two logits are within {} of its largest logit's magnitude (a "
                            "tie in the dtype's rounding: another batch's reduction order) ends that request's comparison",
                            kNearTie);
  c.passed = true;
  std::int64_t near_ties = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto& r = requests[i];
    const auto alone = solo(weights, 1, r.prompt + r.output, -1);
    std::vector<std::int32_t> next(1);
    c.elements_total += static_cast<std::uint64_t>(r.output);
    for (std::int64_t t = 0; t < r.output; ++t) {
      if (t == 0) alone->forward(prompts[i], r.prompt, next);
      else alone->forward(std::vector<std::int32_t>{next[0]}, 1, next);
      const auto got = static_cast<std::size_t>(t) < served.tokens[i].size() ? served.tokens[i][static_cast<std::size_t>(t)] : -1;
      ++c.elements_checked;
      if (got == next[0]) continue;
      // Where the request alone's logits leave the served token as good as its own within
      // rounding, both are the greedy token: the sequences part there, and nothing after it
      // compares.
      const auto& logits = alone->logits();
      const float best = logits[static_cast<std::size_t>(next[0])];
      const float scale = *std::max_element(logits.begin(), logits.end(), [](float a, float b) { return std::abs(a) < std::abs(b); });
      if (got >= 0 && got < weights.config.vocab && best - logits[static_cast<std::size_t>(got)] <= kNearTie * std::abs(scale)) {
        ++near_ties;
        break;
      }
      if (c.passed) {
        c.passed = false;
        c.max_error_ratio = 1;
        c.worst_element = fmt::format("request {} (prompt {}, output {}) token {}: served {}, alone {}", i, r.prompt, r.output, t,
                                      got, next[0]);
      }
      break;
    }
    if (served.tokens[i].size() != static_cast<std::size_t>(r.output) && c.passed) {
      c.passed = false;
      c.max_error_ratio = 1;
      c.worst_element = fmt::format("request {}: {} tokens served, {} asked", i, served.tokens[i].size(), r.output);
    }
  }
  if (c.passed && near_ties > 0)
    c.worst_element = fmt::format("{} request(s) parted from their run alone at a near tie of the top two logits", near_ties);
  return c;
}

ServeInstance::ServeInstance(const Problem& p, std::uint64_t seed, PagedDecoderFactory paged)
    : shape_(shape_of(p)), dtype_(p.dtype), seed_(seed), solo_(uniform_over_paged(paged, kServePage)),
      weights_(load_weights(shape_.model, p.dtype, seed)) {
  const auto schedule = serve_schedule(shape_.serve, weights_.config.max_positions);
  for (const auto& r : schedule) max_context_ = std::max(max_context_, r.prompt + r.output);
  config_.token_budget = shape_.serve.budget;
  config_.max_sequences = shape_.serve.batch;
  config_.page = kServePage;
  config_.blocks = serve_cache_blocks(shape_.serve, schedule, kServePage);  // as the point declared it
  paged_ = paged(weights_, config_.blocks, config_.page, max_context_, -1);
  paged_->prepare_steps(config_.token_budget, config_.max_sequences);
}

Correctness ServeInstance::check() {
  // The kernels against the reference first, as the other scenarios check them.
  auto kernels = check_decoder(weights_, 2, seed_ + 3, solo_);
  if (!kernels.passed) return kernels;
  const auto schedule = serve_schedule(shape_.serve, weights_.config.max_positions);
  std::vector<ScheduledRequest> requests;
  for (const auto& r : schedule) {
    if (requests.size() == kCheckRequests) break;
    requests.push_back({0, std::min(r.prompt, kCheckPrompt), std::min(r.output, kCheckOutput), false});
  }
  SchedulerConfig small;
  small.max_sequences = 4;
  small.token_budget = 16;
  small.page = config_.page;
  small.blocks = std::min(config_.blocks, 2 * blocks_for(kCheckPrompt + kCheckOutput, config_.page));
  auto served = check_served_tokens(weights_, *paged_, small, requests, solo_, shape_.serve.seed);
  if (!served.passed) return served;
  kernels.tolerance += "; and " + served.tolerance;
  kernels.elements_checked += served.elements_checked;
  kernels.elements_total += served.elements_total;
  return kernels;
}

bool ServeInstance::meets_slo(const ServeSummary& s) const {
  return s.valid && s.ttft.p99 <= shape_.slo.ttft_s && s.tpot.p99 <= shape_.slo.tpot_s;
}

ServeInstance::Point ServeInstance::serve_at(double rate) {
  ServeLoad load = shape_.serve;
  load.rate = rate;
  const auto schedule = serve_schedule(load, weights_.config.max_positions);
  for (const auto& r : schedule)
    if (r.prompt + r.output > max_context_) throw std::logic_error("a swept rate's schedule outgrew the decoder's context");
  const auto prompts = serve_prompts(schedule, weights_.config.vocab, load.seed);
  Point p;
  p.run = run_serve(*paged_, config_, schedule, prompts, true, false);
  p.summary = summarize_serve(p.run.requests, p.run.steps, shape_.slo, config_.blocks);
  return p;
}

nlohmann::ordered_json ServeInstance::decode_steps_json(const std::vector<StepSample>& steps, double from_s, double to_s) const {
  // Each batch size the window's decode-only steps reached, with its modelled work at the
  // steps' mean context: the report places it on the roofline.
  auto out = nlohmann::ordered_json::array();
  for (const auto& d : decode_steps_by_batch(steps, from_s, to_s)) {
    const Work w = decode_step_work(weights_.config, static_cast<double>(d.batch), d.mean_context, dtype_);
    out.push_back({{"batch", d.batch}, {"steps", d.steps}, {"median_s", d.median_s}, {"mean_context", d.mean_context},
                   {"flops", w.flops}, {"bytes", w.bytes}});
  }
  return out;
}

ScenarioRepetition ServeInstance::repetition_of(const Point& p, double rate) {
  const auto& s = p.summary;
  double first_arrival = 0, last_token = 0;
  bool any = false;
  for (const auto& r : p.run.requests)
    if (!r.warmup && !r.token_s.empty()) {
      first_arrival = any ? std::min(first_arrival, r.arrival_s) : r.arrival_s;
      last_token = std::max(last_token, r.token_s.back());
      any = true;
    }
  last_ = {{"verdict", s.verdict},
           {"rate", rate},
           {"slo", {{"ttft_s", shape_.slo.ttft_s}, {"tpot_s", shape_.slo.tpot_s}}},
           {"engine", {{"max_batch", config_.max_sequences}, {"token_budget", config_.token_budget}, {"page", config_.page},
                       {"cache_blocks", config_.blocks}}},
           {"requests", {{"scheduled", p.run.requests.size()}, {"measured", s.measured}, {"meeting_slo", s.meeting_slo}}},
           {"window_s", s.window_s},
           {"ttft_s", percentiles_json(s.ttft)},
           {"tpot_s", percentiles_json(s.tpot)},
           {"itl_s", percentiles_json(s.itl)},
           {"e2e_s", percentiles_json(s.e2e)},
           {"series", compact_series(p.run.steps, first_arrival, last_token, config_.blocks)},
           {"decode_steps", decode_steps_json(p.run.steps, first_arrival, last_token)}};
  ScenarioRepetition rep;
  rep.iterations = std::max<std::int64_t>(s.output_tokens, 1);
  // No measured token (an INVALID run): the run's wall time stands as the sample.
  rep.seconds_per_iteration = (s.window_s > 0 ? s.window_s : p.run.wall_s) / static_cast<double>(rep.iterations);
  rep.metrics = {{"ttft_p50_s", s.ttft.p50}, {"ttft_p90_s", s.ttft.p90}, {"ttft_p99_s", s.ttft.p99},
                 {"tpot_p50_s", s.tpot.p50}, {"tpot_p90_s", s.tpot.p90}, {"tpot_p99_s", s.tpot.p99},
                 {"itl_p50_s", s.itl.p50},   {"itl_p90_s", s.itl.p90},   {"itl_p99_s", s.itl.p99},
                 {"e2e_p50_s", s.e2e.p50},   {"e2e_p90_s", s.e2e.p90},   {"e2e_p99_s", s.e2e.p99},
                 {"requests_per_s", s.requests_per_s}, {"output_tokens_per_s", s.output_tokens_per_s},
                 {"goodput_requests_per_s", s.goodput_requests_per_s},
                 {"slo_met_fraction", s.measured ? static_cast<double>(s.meeting_slo) / static_cast<double>(s.measured) : 0},
                 {"batch_mean", s.batch_mean}, {"batch_max", s.batch_max},
                 {"cache_occupancy_mean", s.occupancy_mean}, {"cache_occupancy_max", s.occupancy_max},
                 {"backlog_growth", s.backlog_growth}, {"wait_growth_s", s.wait_growth_s},
                 {"wait_noise_s", s.wait_noise_s},
                 {"valid", s.valid ? 1.0 : 0.0}};
  return rep;
}

ScenarioRepetition ServeInstance::run_repetition() {
  if (!warmed_) {
    // The harness's warm-up: the warm-up requests alone (caches, oneDNN's kernels for the
    // row counts they reach), not the whole schedule again.
    warmed_ = true;
    auto schedule = serve_schedule(shape_.serve, weights_.config.max_positions);
    schedule.resize(static_cast<std::size_t>(std::max<std::int64_t>(1, shape_.serve.warmup_requests())));
    const auto prompts = serve_prompts(schedule, weights_.config.vocab, shape_.serve.seed);
    const auto run = run_serve(*paged_, config_, schedule, prompts, true, false);
    return {run.wall_s, 1, {}};
  }
  if (!shape_.sweep_rate) return repetition_of(serve_at(shape_.serve.rate), shape_.serve.rate);
  // --sweep-rate: the shape's rate first; if it misses the objective, bisect (0, rate) for
  // the highest rate that meets it, a bounded number of runs (search_rate).
  nlohmann::ordered_json tried = nlohmann::ordered_json::array();
  std::optional<std::pair<double, Point>> best, lowest_missed;
  search_rate(shape_.serve.rate, kSweepRuns, [&](double rate) {
    auto point = serve_at(rate);
    const bool ok = meets_slo(point.summary);
    const auto& sum = point.summary;
    tried.push_back({{"rate", rate}, {"meets_slo", ok}, {"verdict", sum.verdict},
                     {"ttft_p99_s", sum.ttft.p99}, {"tpot_p99_s", sum.tpot.p99},
                     {"output_tokens_per_s", sum.output_tokens_per_s},
                     // The load-latency curve's point: every percentile, goodput, validity.
                     {"valid", sum.valid}, {"goodput_requests_per_s", sum.goodput_requests_per_s},
                     {"ttft_s", percentiles_json(sum.ttft)}, {"tpot_s", percentiles_json(sum.tpot)},
                     {"e2e_s", percentiles_json(sum.e2e)}});
    if (ok && (!best || rate > best->first)) best.emplace(rate, std::move(point));
    else if (!ok && (!lowest_missed || rate < lowest_missed->first)) lowest_missed.emplace(rate, std::move(point));
    return ok;
  });
  if (!best) best = std::move(lowest_missed);  // nothing met the objective: the lowest rate tried
  auto rep = repetition_of(best->second, best->first);
  const bool met = meets_slo(best->second.summary);
  rep.metrics.push_back({"sustainable_rate", met ? best->first : 0.0});
  last_["sweep"] = {{"bound", shape_.serve.rate}, {"runs", tried},
                    {"sustainable_rate", met ? best->first : 0.0},
                    {"result", met ? fmt::format("{:.3g} requests/s meets the objective at p99{}", best->first,
                                                 best->first == shape_.serve.rate ? " (the shape's rate, the search's bound)" : "")
                                   : fmt::format("no rate down to {:.3g} requests/s meets the objective at p99", best->first)}};
  return rep;
}

}  // namespace rooftop::inference
