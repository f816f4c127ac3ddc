#pragma once
// The serve points of a report gathered by workload (one device, one model, dtype, lengths,
// engine and objective; any rates): the load-latency curve (TTFT, TPOT and E2E at p50, p90
// and p99 against the offered rate, from --sweep-rate's runs and from points served at
// several rates), the objective as a line, the sustainable rate marked, INVALID points
// hollow; beside it the decode step on the device's roofline at the batch sizes the runs
// reached; and the procurement figures (docs/report.md, "Serving").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/device_profile.hpp"
#include "reports/html_report.hpp"

namespace rooftop::reports {

struct LatencyPercentiles {
  double p50 = 0, p90 = 0, p99 = 0;  // seconds; 0 where not recorded
};

struct ServeRatePoint {
  double rate = 0;  // offered: requests a second
  LatencyPercentiles ttft, tpot, e2e;
  bool valid = true;   // LoadGen's verdict: the engine kept up
  bool meets = false;  // valid, and TTFT p99 and TPOT p99 within the objective
  double goodput = -1, output_tokens_per_s = -1;  // -1: not recorded
  std::string verdict;
};

// One batch size the decode-only steps reached: their median time and modelled work.
struct DecodeStepPoint {
  double rate = 0;  // of the point whose run it was
  std::string row;  // that point's results row (the page's filter)
  std::int64_t batch = 0, steps = 0;
  double median_s = 0, mean_context = 0, flops = 0, bytes = 0;
};

struct ServeCurve {
  std::string fingerprint, device, workload;  // workload: model, dtype, lengths, engine
  std::string name;                           // the points' common name, for the page's filter
  double slo_ttft_s = 0, slo_tpot_s = 0;
  std::vector<ServeRatePoint> points;  // by rate
  // The highest rate meeting the objective: --sweep-rate's answer (0: none met), else the
  // highest rate served that met it; none where nothing says.
  std::optional<double> sustainable;
  bool searched = false;              // from --sweep-rate's bounded search
  double output_tokens_per_s = -1;    // at the sustainable rate; -1: none
  std::optional<double> joules_per_token;  // at the sustainable rate, from the energy counter
  std::string energy_basis;                // what that power was measured over
  std::vector<DecodeStepPoint> decode_steps;
  const Ceilings* ceilings = nullptr;
  const Datasheet* datasheet = nullptr;
};

// Every serve workload of the inputs, in the order first seen.
std::vector<ServeCurve> serve_curves(const std::vector<ReportInput>& inputs);

// The curve: three panels (TTFT, TPOT, E2E), an SVG each (log latency over linear rate), and
// their legend, in one <div class="serve-curve">.
std::string load_latency_svg(const ServeCurve& curve);
// The decode step on the device's roofline, one marker a batch size reached.
std::string decode_roofline_svg(const ServeCurve& curve);
// The decode step at a batch size against the memory level its bytes stream from
// (streaming_level_for): its bytes over its median time, and that share of the level's
// bandwidth; empty without ceilings.
struct DecodeStepRoof {
  double bytes_per_s = 0, percent = 0;
  std::string level;
};
std::optional<DecodeStepRoof> decode_step_roof(const DecodeStepPoint& step, const ServeCurve& curve);

}  // namespace rooftop::reports
