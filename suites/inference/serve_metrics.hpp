#pragma once
// What a serve run measured, reduced to a point's figures: latency percentiles (TTFT, TPOT,
// inter-token latency, end-to-end), throughput, goodput at the objective, batch size and
// cache occupancy over time, and whether the run is valid (the engine kept up with the
// arrivals) — LoadGen's INVALID instead of a misleading mean.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "suites/inference/serve_load.hpp"

namespace rooftop::inference {

// One request's times, from the start of the run.
struct RequestTiming {
  double arrival_s = 0;
  std::vector<double> token_s;  // each output token's time (the first: its time to first token)
  bool warmup = false;
};

// The engine after a step.
struct StepSample {
  double t_s = 0;                // the step's end
  std::int64_t sequences = 0;    // in the step's batch
  std::int64_t tokens = 0;       // new tokens the step ran
  std::int64_t blocks_in_use = 0;
  std::int64_t waiting = 0;      // arrived, not admitted
  std::int64_t outstanding = 0;  // arrived, not finished
  double seconds = 0;            // the forward's own time (the decode-step roofline's)
  bool decode_only = false;      // every chunk one decode token: no prefill in the step
  std::int64_t cached_positions = 0;  // cache positions the step's sequences attended to, summed
};

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0;
};
// p50, p90 and p99 (harness quantile, type 7); zeros for no values.
Percentiles percentiles(std::vector<double> values);

// A run is INVALID where its measured arrivals span less than the median end-to-end latency
// (no steady state), or where the engine did not keep up: the wait for a first token grew
// over the measured requests (their TTFT's least-squares trend in arrival order, times their
// count) by more than kWaitNoiseSigmas times the trend's noise (the scatter about it, as if
// independent requests) and by more than kMinWaitGrowth of the objective's TTFT (a trend too
// small to matter to it, however certain, is not a queue that grows). A queue that grows shows as
// a growing wait; the outstanding count alone misjudged: a Poisson stream's count wanders
// where the engine keeps up (an 8B at 4 requests/s served every token within 10 ms and its
// count's trend still read 7 more of 64), and where it does not, the count's own noise is a
// random walk of the arrivals as large as the growth.
inline constexpr double kWaitNoiseSigmas = 3;
inline constexpr double kMinWaitGrowth = 0.1;

struct ServeSummary {
  Percentiles ttft, tpot, itl, e2e;
  std::int64_t measured = 0, output_tokens = 0, meeting_slo = 0;
  double window_s = 0;  // the first measured arrival to the last measured request's last token
  double requests_per_s = 0, output_tokens_per_s = 0, goodput_requests_per_s = 0;
  double batch_mean = 0, batch_max = 0, occupancy_mean = 0, occupancy_max = 0;
  double backlog_growth = 0;  // outstanding requests gained over the measured arrivals (least squares)
  double wait_growth_s = 0;   // TTFT gained over the measured requests (least squares, arrival order)
  double wait_noise_s = 0;    // one standard deviation of wait_growth_s, were the engine keeping up
  bool valid = true;
  std::string verdict;  // "VALID" or "INVALID: why"
};

ServeSummary summarize_serve(const std::vector<RequestTiming>& requests, const std::vector<StepSample>& steps, const Slo& slo,
                             std::int64_t cache_blocks);
// --sweep-rate's bounded search: `bound` (the shape's rate) first, met: the answer; else
// bisection of (0, bound), `runs` runs in all. `meets(rate)` serves a run at that rate and
// says whether it met the objective. The highest rate met (0: none) and each rate tried.
struct RateSearch {
  double sustainable = 0;
  std::vector<std::pair<double, bool>> tried;
};
inline constexpr int kSweepRuns = 6;
RateSearch search_rate(double bound, int runs, const std::function<bool(double)>& meets);
// The lowest rate search_rate(bound, kSweepRuns, ...) may serve: every run missed, bound
// halved kSweepRuns - 1 times.
inline constexpr double lowest_swept_rate(double bound) { return bound / (1 << (kSweepRuns - 1)); }

// The decode-only steps of the window by batch size: how many, their median forward time and
// the mean cache positions a sequence read (what the step's bytes depend on), for the
// roofline of the decode step at the batch sizes the run reached.
struct DecodeStepsAtBatch {
  std::int64_t batch = 0, steps = 0;
  double median_s = 0, mean_context = 0;
};
std::vector<DecodeStepsAtBatch> decode_steps_by_batch(const std::vector<StepSample>& steps, double from_s, double to_s);

// The batch size, cache occupancy and queue over the window in at most `points` time
// buckets (their mean, max, max): a compact series for the results.
nlohmann::ordered_json compact_series(const std::vector<StepSample>& steps, double from_s, double to_s, std::int64_t cache_blocks,
                                      int points = 48);

}  // namespace rooftop::inference
