#include "harness/roofline.hpp"

#include <algorithm>
#include <limits>

namespace rooftop {

std::string_view bound_name(Bound bound) {
  switch (bound) {
    case Bound::memory: return "memory";
    case Bound::compute: return "compute";
    case Bound::latency: return "latency";
  }
  return "?";
}

double attainable_flops(double compute_peak, double bandwidth, double intensity) {
  return std::min(compute_peak, intensity * bandwidth);
}

double ridge_intensity(double compute_peak, double bandwidth) {
  return bandwidth > 0 ? compute_peak / bandwidth : std::numeric_limits<double>::infinity();
}

bool can_execute(Dtype unit_dtype, Dtype problem_dtype) {
  if (unit_dtype == problem_dtype) return true;
  // Narrow floating types widen exactly to fp32, and tf32 is fp32 data: fp32 units run them.
  return unit_dtype == Dtype::fp32 &&
         (problem_dtype == Dtype::bf16 || problem_dtype == Dtype::fp16 || problem_dtype == Dtype::tf32);
}

const ComputeCeiling* compute_ceiling_for(const Ceilings& ceilings, Dtype dtype) {
  const ComputeCeiling* best = nullptr;
  for (const auto& c : ceilings.compute)
    if (const auto unit = find_dtype(c.dtype); unit && can_execute(*unit, dtype) && c.flops_per_s > 0 && (!best || c.flops_per_s > best->flops_per_s))
      best = &c;
  return best;
}

const BandwidthCeiling* bandwidth_ceiling_for(const Ceilings& ceilings, double working_set_bytes) {
  for (const auto& b : ceilings.bandwidth)
    if (b.bytes_per_s > 0 && (b.capacity_bytes <= 0 || working_set_bytes <= kResidencyFactor * b.capacity_bytes))
      return &b;
  return nullptr;
}

const BandwidthCeiling* streaming_level_for(const Ceilings& ceilings, double working_set_bytes) {
  const BandwidthCeiling* last = nullptr;
  for (const auto& b : ceilings.bandwidth) {
    if (b.bytes_per_s <= 0) continue;
    if (b.capacity_bytes <= 0 || working_set_bytes <= b.capacity_bytes) return &b;
    last = &b;
  }
  return last;
}

std::optional<RooflinePlacement> place_on_roofline(const Ceilings& ceilings,
                                                   Dtype dtype, const Work& work,
                                                   double seconds, bool cold) {
  const auto* compute = compute_ceiling_for(ceilings, dtype);
  const auto* memory = bandwidth_ceiling_for(ceilings, cold ? 1e300 : work.bytes);
  if (!compute || !memory || seconds <= 0 || work.flops <= 0 || work.bytes <= 0)
    return std::nullopt;
  RooflinePlacement p;
  p.compute_ceiling = compute->name;
  p.compute_peak = compute->flops_per_s;
  p.memory_level = memory->level;
  p.bandwidth = memory->bytes_per_s;
  p.ridge_intensity = ridge_intensity(p.compute_peak, p.bandwidth);
  const double ai = work.arithmetic_intensity();
  p.attainable_flops = attainable_flops(p.compute_peak, p.bandwidth, ai);
  p.achieved_flops = work.flops / seconds;
  p.fraction_of_attainable = p.achieved_flops / p.attainable_flops;
  p.above_ceiling = p.fraction_of_attainable > kAboveCeilingTolerance;
  const auto* stream = cold ? memory : streaming_level_for(ceilings, work.bytes);
  p.stream_level = stream->level;
  p.stream_bandwidth = stream->bytes_per_s;
  p.fraction_of_stream = p.achieved_flops / attainable_flops(p.compute_peak, p.stream_bandwidth, ai);
  const double ideal_seconds = work.flops / p.attainable_flops;
  if (ceilings.dispatch_latency_s > 0 && ideal_seconds < kLatencyBoundFactor * ceilings.dispatch_latency_s)
    p.bound = Bound::latency;
  else
    p.bound = ai < ridge_intensity(p.compute_peak, p.stream_bandwidth) ? Bound::memory : Bound::compute;
  return p;
}

}  // namespace rooftop
