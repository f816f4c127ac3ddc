#include "harness/derived.hpp"

#include <vector>

#include "harness/results.hpp"

namespace rooftop {

Derived derive(const ResultRecord& r, const Ceilings* ceilings) {
  Derived d;
  const auto& params = r.problem.params;
  d.cold = params.is_object() && params.value("cache", std::string()).starts_with("cold");
  if (r.samples.empty()) return d;
  d.summary = summarize(r.seconds());
  const double median = d.summary->median;
  const auto& work = r.problem.work;
  Throughput t{work.flops / median, work.bytes / median, {}, {}};
  // Collectives declare a bus factor, and the link the harness drew it against.
  if (params.is_object() && params.contains("bus_factor")) {
    const double bus = t.bytes_per_s * params["bus_factor"].get<double>();
    if (bus > 0) {
      t.bus_bytes_per_s = bus;
      if (params.contains("link_bytes_per_s")) {
        const double link = params["link_bytes_per_s"].get<double>();
        t.link = LinkShare{params.value("link", std::string()), link, 100.0 * bus / link};
      }
    }
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
    if (params.is_object() && params.value("tokens_per_iteration", 0.0) > 0)
      p.joules_per_token = p.joules_per_iteration / params["tokens_per_iteration"].get<double>();
    d.power = p;
  }
  if (ceilings) d.roofline = place_on_roofline(*ceilings, dtype_name(r.problem.dtype), work, median, d.cold);
  return d;
}

}  // namespace rooftop
