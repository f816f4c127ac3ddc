#include "suites/inference/serve_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "harness/statistics.hpp"

namespace rooftop::inference {

Percentiles percentiles(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  return {quantile(v, 0.50), quantile(v, 0.90), quantile(v, 0.99)};
}

namespace {

// The measured requests' TTFT against their arrival order: the trend's growth over them and
// its standard deviation from the scatter about it (n requests evenly spread: sigma x sqrt(12 / n)).
void trend_of_wait(const std::vector<RequestTiming>& requests, ServeSummary& s) {
  std::vector<std::pair<double, double>> waits;  // (arrival, TTFT)
  for (const auto& r : requests)
    if (!r.warmup && !r.token_s.empty()) waits.emplace_back(r.arrival_s, r.token_s.front() - r.arrival_s);
  std::sort(waits.begin(), waits.end());
  const double n = static_cast<double>(waits.size());
  if (waits.size() < 3) return;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < waits.size(); ++i) {
    const double x = static_cast<double>(i), y = waits[i].second;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx), intercept = (sy - slope * sx) / n;
  double scatter = 0;
  for (std::size_t i = 0; i < waits.size(); ++i) {
    const double r = waits[i].second - (intercept + slope * static_cast<double>(i));
    scatter += r * r;
  }
  s.wait_growth_s = slope * (n - 1);
  s.wait_noise_s = std::sqrt(scatter / (n - 2)) * std::sqrt(12.0 / n);
}

}  // namespace

ServeSummary summarize_serve(const std::vector<RequestTiming>& requests, const std::vector<StepSample>& steps, const Slo& slo,
                             std::int64_t cache_blocks) {
  ServeSummary s;
  std::vector<double> ttft, tpot, itl, e2e;
  double first_arrival = std::numeric_limits<double>::infinity(), last_arrival = 0, last_token = 0;
  for (const auto& r : requests) {
    if (r.warmup || r.token_s.empty()) continue;
    ++s.measured;
    const auto n = static_cast<std::int64_t>(r.token_s.size());
    s.output_tokens += n;
    first_arrival = std::min(first_arrival, r.arrival_s);
    last_arrival = std::max(last_arrival, r.arrival_s);
    last_token = std::max(last_token, r.token_s.back());
    const double first = r.token_s.front() - r.arrival_s;
    const double per_token = n > 1 ? (r.token_s.back() - r.token_s.front()) / static_cast<double>(n - 1) : 0;
    ttft.push_back(first);
    e2e.push_back(r.token_s.back() - r.arrival_s);
    if (n > 1) tpot.push_back(per_token);
    for (std::size_t i = 1; i < r.token_s.size(); ++i) itl.push_back(r.token_s[i] - r.token_s[i - 1]);
    if (first <= slo.ttft_s && per_token <= slo.tpot_s) ++s.meeting_slo;
  }
  s.ttft = percentiles(ttft);
  s.tpot = percentiles(tpot);
  s.itl = percentiles(itl);
  s.e2e = percentiles(e2e);
  if (s.measured == 0) {
    s.valid = false;
    s.verdict = "INVALID: no measured request finished";
    return s;
  }
  s.window_s = last_token - first_arrival;
  if (s.window_s > 0) {
    s.requests_per_s = static_cast<double>(s.measured) / s.window_s;
    s.output_tokens_per_s = static_cast<double>(s.output_tokens) / s.window_s;
    s.goodput_requests_per_s = static_cast<double>(s.meeting_slo) / s.window_s;
  }
  // Batch and cache over the window; the backlog's trend over the measured arrivals.
  double batch_sum = 0, occupancy_sum = 0, n = 0;
  double st = 0, sy = 0, stt = 0, sty = 0, m = 0;
  for (const auto& step : steps) {
    if (step.t_s < first_arrival || step.t_s > last_token) continue;
    const double occupancy = static_cast<double>(step.blocks_in_use) / static_cast<double>(cache_blocks);
    batch_sum += static_cast<double>(step.sequences);
    occupancy_sum += occupancy;
    s.batch_max = std::max(s.batch_max, static_cast<double>(step.sequences));
    s.occupancy_max = std::max(s.occupancy_max, occupancy);
    ++n;
    if (step.t_s > last_arrival) continue;
    const double y = static_cast<double>(step.outstanding);
    st += step.t_s;
    sy += y;
    stt += step.t_s * step.t_s;
    sty += step.t_s * y;
    ++m;
  }
  if (n > 0) {
    s.batch_mean = batch_sum / n;
    s.occupancy_mean = occupancy_sum / n;
  }
  const double span = last_arrival - first_arrival, denominator = m * stt - st * st;
  if (m >= 3 && span > 0 && denominator > 0) s.backlog_growth = (m * sty - st * sy) / denominator * span;
  trend_of_wait(requests, s);
  if (span < s.e2e.p50) {
    // Arrivals over before a typical request is done: no steady state, no trend to judge.
    s.valid = false;
    s.verdict = fmt::format("INVALID: the measured arrivals span {:.3g} s, less than the median end-to-end latency {:.3g} s: "
                            "no steady state to measure (more requests, a longer window or a lower rate)",
                            span, s.e2e.p50);
    return s;
  }
  s.valid = !(s.wait_growth_s > kWaitNoiseSigmas * s.wait_noise_s && s.wait_growth_s > kMinWaitGrowth * slo.ttft_s);
  s.verdict = s.valid ? "VALID"
                      : fmt::format("INVALID: the engine did not keep up: the wait for a first token grew by {:.3g} s over the "
                                    "measured requests (trend; its noise {:.2g} s)",
                                    s.wait_growth_s, s.wait_noise_s);
  return s;
}

RateSearch search_rate(double bound, int runs, const std::function<bool(double)>& meets) {
  RateSearch s;
  double lo = 0, hi = bound;
  for (int i = 0; i < runs; ++i) {
    const double rate = i == 0 ? hi : (lo + hi) / 2;
    const bool ok = meets(rate);
    s.tried.emplace_back(rate, ok);
    if (ok) {
      lo = rate;
      s.sustainable = rate;
      if (i == 0) break;  // the bound itself is met
    } else {
      hi = rate;
    }
  }
  return s;
}

std::vector<DecodeStepsAtBatch> decode_steps_by_batch(const std::vector<StepSample>& steps, double from_s, double to_s) {
  std::map<std::int64_t, std::vector<double>> seconds;
  std::map<std::int64_t, double> positions;
  for (const auto& s : steps)
    if (s.decode_only && s.sequences > 0 && s.t_s >= from_s && s.t_s <= to_s) {
      seconds[s.sequences].push_back(s.seconds);
      positions[s.sequences] += static_cast<double>(s.cached_positions);
    }
  std::vector<DecodeStepsAtBatch> out;
  for (auto& [batch, times] : seconds) {
    const auto n = static_cast<double>(times.size());
    std::sort(times.begin(), times.end());
    out.push_back({batch, static_cast<std::int64_t>(times.size()), quantile(times, 0.5),
                   positions[batch] / (n * static_cast<double>(batch))});
  }
  return out;
}

nlohmann::ordered_json compact_series(const std::vector<StepSample>& steps, double from_s, double to_s, std::int64_t cache_blocks,
                                      int points) {
  nlohmann::ordered_json t = nlohmann::ordered_json::array(), batch = t, occupancy = t, waiting = t;
  if (to_s > from_s && points > 0) {
    const double width = (to_s - from_s) / points;
    for (int b = 0; b < points; ++b) {
      const double lo = from_s + b * width, hi = lo + width;
      double sum = 0, count = 0, occ = 0;
      std::int64_t queue = 0;
      for (const auto& s : steps)
        if (s.t_s >= lo && (s.t_s < hi || (b == points - 1 && s.t_s <= hi))) {
          sum += static_cast<double>(s.sequences);
          occ = std::max(occ, static_cast<double>(s.blocks_in_use) / static_cast<double>(cache_blocks));
          queue = std::max(queue, s.waiting);
          ++count;
        }
      if (count == 0) continue;  // idle: no step
      const auto round3 = [](double x) { return std::round(x * 1000) / 1000; };
      t.push_back(round3(lo + width / 2 - from_s));
      batch.push_back(round3(sum / count));
      occupancy.push_back(round3(occ));
      waiting.push_back(queue);
    }
  }
  return {{"t_s", t}, {"batch_mean", batch}, {"cache_occupancy_max", occupancy}, {"waiting_max", waiting}};
}

}  // namespace rooftop::inference
