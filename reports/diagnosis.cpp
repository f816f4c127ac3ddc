#include "reports/diagnosis.hpp"

#include <fmt/format.h>

namespace rooftop::reports {
namespace {
// Below this share of the roof, the code (not the machine) is the limit.
constexpr double kFarFromRoof = 50.0;
}  // namespace

Diagnosis diagnose(const nlohmann::ordered_json& r, const Ceilings* ceilings) {
  const std::string status = r.value("status", "");
  if (status != "ok") return {fmt::format("{}: {}", status, r.value("reason", "")), "see the reason; nothing was measured"};
  const auto& roof = r["roofline"];
  if (!roof.is_object())
    return {"no ceiling for this dtype on this device: plotted without a roof",
            "run `rooftop characterize` on this machine so the result can be placed"};
  const double pct = roof["percent_of_attainable"].get<double>();
  const std::string bound = roof["bound"].get<std::string>();
  if (roof["above_ceiling"].get<bool>())
    return {fmt::format("{:.0f}% of its roof: above the measured ceiling, so the ceiling is wrong", pct),
            "run `rooftop characterize --merge` on an idle machine: it keeps the best of both"};
  if (bound == "latency")
    return {fmt::format("latency-bound: too small to fill the device ({:.0f}% of the roof)", pct),
            "larger batch or tiles, fuse small operations, or amortize dispatch"};
  if (bound == "memory") {
    const std::string level = roof["memory_level"].get<std::string>();
    if (pct < kFarFromRoof)
      return {fmt::format("memory-bound at {:.0f}% of the {} bandwidth", pct, level),
              "far from the bandwidth roof: access pattern, blocking or prefetch; then autotune"};
    return {fmt::format("memory-bound at {:.0f}% of the {} bandwidth", pct, level),
            "cut bytes: fuse with neighbours, a narrower dtype (bf16, int8), or keep data in cache"};
  }
  // Compute-bound: is there a faster unit for this work than the dtype's own ceiling?
  const double peak = roof["compute_peak_flops_per_s"].get<double>();
  std::string faster;
  if (ceilings)
    for (const auto& c : ceilings->compute)
      if (c.flops_per_s > 1.5 * peak && c.dtype != r["dtype"].get<std::string>()) faster = c.dtype;
  const std::string finding =
      fmt::format("compute-bound at {:.0f}% of the {} peak", pct, roof["compute_ceiling"].get<std::string>());
  if (pct < kFarFromRoof) return {finding, "far from the peak: larger tiles, better blocking, autotune the implementation"};
  if (!faster.empty())
    return {finding, fmt::format("near this unit's roof: move to the {} matrix units if accuracy allows", faster)};
  return {finding, "near the roof: little is left here but a narrower dtype or less work"};
}

}  // namespace rooftop::reports
