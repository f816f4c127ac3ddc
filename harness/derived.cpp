#include "harness/derived.hpp"

#include <vector>

#include "harness/results.hpp"

namespace rooftop {

Derived derive(const ResultRecord& r, const Ceilings* ceilings) {
  Derived d;
  d.cold = r.measured.cache.starts_with("cold");
  if (r.samples.empty()) return d;
  d.summary = summarize(r.seconds());
  const double median = d.summary->median;
  const auto& work = r.problem.work;
  Throughput t{work.flops / median, work.bytes / median, {}, {}};
  // Collectives declare a bus factor, and the harness records the link it drew them against.
  if (const double bus = t.bytes_per_s * r.declared.bus_factor; bus > 0) {
    t.bus_bytes_per_s = bus;
    if (r.measured.link_bytes_per_s > 0)
      t.link = LinkShare{r.measured.link, r.measured.link_bytes_per_s, 100.0 * bus / r.measured.link_bytes_per_s};
  }
  d.throughput = t;
  double joules = 0, wall = 0;
  for (const auto& s : r.samples) {
    joules += s.energy_j;
    wall += s.wall_s;
  }
  if (joules > 0 && wall > 0) {
    PowerDraw p;
    p.board_w = joules / wall;
    p.joules_per_iteration = p.board_w * median;
    p.flops_per_watt = t.flops_per_s / p.board_w;
    if (r.declared.tokens_per_iteration > 0) p.joules_per_token = p.joules_per_iteration / r.declared.tokens_per_iteration;
    d.power = p;
  }
  if (ceilings) d.roofline = place_on_roofline(*ceilings, r.problem.dtype, work, median, d.cold);
  return d;
}

}  // namespace rooftop
