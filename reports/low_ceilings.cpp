#include "reports/low_ceilings.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "harness/derived.hpp"
#include "harness/units.hpp"
#include "reports/result_rows.hpp"

namespace rooftop::reports {

std::vector<LowCeiling> low_ceilings(const std::vector<ReportInput>& inputs) {
  std::vector<LowCeiling> found;
  std::vector<std::pair<double, double>> raw;  // per entry: the ceiling and the fastest rate above it
  for (const auto& in : inputs) {
    if (!in.run.meta.ceilings) continue;
    const auto& device = in.run.meta.device;
    const std::string name = device_display_name(device);
    const std::string& backend = in.run.meta.backend;
    for (const auto& r : in.run.results) {
      const auto& d = derived_of(r);
      if (!d.roofline || !d.roofline->above_ceiling || !d.throughput) continue;
      const auto& p = *d.roofline;
      // The ceiling that set the attainable rate: the compute peak, or the memory level's
      // bandwidth times the intensity.
      const bool compute = p.attainable_flops >= p.compute_peak * (1 - 1e-9);
      const std::string ceiling = compute ? p.compute_ceiling : p.memory_level + " bandwidth";
      const double limit = compute ? p.compute_peak : p.bandwidth;
      const double rate = compute ? p.achieved_flops : d.throughput->bytes_per_s;
      const std::string unit = compute ? std::string(rate_unit(r.problem.dtype)) : "B/s";
      auto it = std::find_if(found.begin(), found.end(),
                             [&](const LowCeiling& c) { return c.device == name && c.ceiling == ceiling; });
      if (it == found.end()) {
        found.push_back({name, ceiling, format_si(limit, unit), "", 0, 0,
                         "rooftop characterize" + (backend.empty() ? std::string() : " --backend " + backend) + " --merge"});
        raw.emplace_back(limit, 0);
        it = found.end() - 1;
      }
      auto& best = raw[static_cast<std::size_t>(it - found.begin())];
      ++it->results;
      if (rate > best.second) {
        best.second = rate;
        it->reached = format_si(rate, unit);
        it->percent = 100 * rate / best.first;
      }
    }
  }
  return found;
}

}  // namespace rooftop::reports
