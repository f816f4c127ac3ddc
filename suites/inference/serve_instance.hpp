#pragma once
// A serve point on any backend with a paged decoder: the load (serve_load.hpp) served by
// the engine (serve_engine.hpp) in real time, a repetition a run of the whole schedule,
// reduced to latency percentiles, throughput and goodput (serve_metrics.hpp). Its check:
// the paged decoder against the reference, then every request's greedy tokens served
// (batched, chunked, paged) against the same request run alone.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/problem.hpp"
#include "suites/inference/decoder.hpp"
#include "suites/inference/inference_problem.hpp"
#include "suites/inference/paged_decoder.hpp"
#include "suites/inference/serve_engine.hpp"

namespace rooftop::inference {

// Each request's greedy tokens served together under `config` equal to those of the request
// alone on `solo` (a uniform decoder of one sequence): the served equivalence of the issue.
Correctness check_served_tokens(const DecoderWeights& weights, PagedDecoder& paged, const SchedulerConfig& config,
                                const std::vector<ScheduledRequest>& requests, const DecoderFactory& solo, std::uint64_t seed);

class ServeInstance final : public ScenarioInstance {
 public:
  // `paged`: the backend's paged decoder. The reference check and each request alone run on
  // the same decoder's uniform view (uniform_over_paged).
  ServeInstance(const Problem& problem, std::uint64_t seed, PagedDecoderFactory paged);

  std::string implementation() const override { return paged_->implementation(); }
  std::string implementation_label() const override { return paged_->implementation_label(); }
  Correctness check() override;
  void run() override { run_repetition(); }
  ScenarioRepetition run_repetition() override;
  // The last repetition's detail: the verdict, percentiles, the engine's configuration, the
  // batch and cache series, and with --sweep-rate the rates tried.
  nlohmann::ordered_json outputs() override { return last_; }

 private:
  struct Point {
    ServeSummary summary;
    ServeRun run;
  };
  Point serve_at(double rate);
  bool meets_slo(const ServeSummary& s) const;
  ScenarioRepetition repetition_of(const Point& p, double rate);
  nlohmann::ordered_json decode_steps_json(const std::vector<StepSample>& steps, double from_s, double to_s) const;

  InferenceShape shape_;
  Dtype dtype_;
  std::uint64_t seed_;
  DecoderFactory solo_;
  DecoderWeights weights_;
  std::unique_ptr<PagedDecoder> paged_;
  SchedulerConfig config_;
  std::int64_t max_context_ = 0;
  bool warmed_ = false;
  nlohmann::ordered_json last_ = nullptr;
};

}  // namespace rooftop::inference
