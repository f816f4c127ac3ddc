#include "reports/diagnosis.hpp"

#include <fmt/format.h>

#include <optional>

#include "harness/roofline.hpp"
#include "harness/units.hpp"

namespace rooftop::reports {
namespace {
// Below this share of the roof, the code (not the machine) is the limit; from the second,
// the point is near its roof.
constexpr double kFarFromRoof = 50.0, kNearRoof = 80.0;

// How narrow a dtype is: a faster unit or fewer bytes are only offered narrower than the
// row's own (fp32 -> tf32 -> bf16/fp16 -> fp8 -> int8).
int narrowness(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp32: return 0;
    case Dtype::tf32: return 1;
    case Dtype::bf16:
    case Dtype::fp16: return 2;
    case Dtype::fp8: return 3;
    case Dtype::int8: return 4;
  }
  return 0;
}
// A ceiling's unit, by its dtype's name; a type rooftop has no problems in ranks as fp32.
int narrowness(const std::string& name) { return narrowness(find_dtype(name).value_or(Dtype::fp32)); }

struct FasterUnit {
  std::string dtype;
  double speedup = 0;  // its peak over the row's
};
// The next narrower dtype whose unit is markedly faster here: the smallest step down.
std::optional<FasterUnit> faster_unit(Dtype dtype, double peak, const Ceilings* ceilings) {
  std::optional<FasterUnit> best;
  int best_rank = 99;
  if (!ceilings || !(peak > 0)) return best;
  for (const auto& c : ceilings->compute) {
    const int rank = narrowness(c.dtype);
    if (c.flops_per_s > 1.5 * peak && rank > narrowness(dtype) && rank < best_rank) {
      best = FasterUnit{c.dtype, c.flops_per_s / peak};
      best_rank = rank;
    }
  }
  return best;
}

// A GEMM whose sizes break the matrix units' alignment: rows of 16 bytes (8 bf16/fp16, 16
// fp8/int8, 4 fp32/tf32 elements), or the library falls back to kernels without them.
std::optional<std::string> misaligned(const ResultRecord& r) {
  if (r.problem.family != "gemm" || !r.declared.matrix) return std::nullopt;
  const auto& sizes = *r.declared.matrix;
  const int per_16_bytes = narrowness(r.problem.dtype) >= 3 ? 16 : narrowness(r.problem.dtype) == 2 ? 8 : 4;
  for (const auto& [dim, v] : {std::pair{'K', sizes.k}, {'N', sizes.n}, {'M', sizes.m}})
    if (v % per_16_bytes != 0 && (dim != 'M' || v > 16))
      return fmt::format("{} = {} is not a multiple of {} ({} rows of 16 bytes): matrix-unit kernels need them; pad {} "
                         "to {}", dim, v, per_16_bytes, dtype_name(r.problem.dtype),
                         static_cast<char>(dim - 'A' + 'a'), (v + per_16_bytes - 1) / per_16_bytes * per_16_bytes);
  return std::nullopt;
}

std::string rate_unit_of(Dtype dtype) { return narrowness(dtype) == 4 ? "OP/s" : "FLOP/s"; }

// A measured ceiling's bandwidth by level name; 0 when the run has none.
double level_bandwidth(const Ceilings* ceilings, const std::string& level) {
  if (ceilings)
    for (const auto& b : ceilings->bandwidth)
      if (b.level == level) return b.bytes_per_s;
  return 0;
}

// What a roofline placement rests on: the rate and the ceiling it was held against, and the
// intensity against the ridge that chose the roof.
std::string roofline_evidence(const ResultRecord& r, const Derived& d, const RooflinePlacement& roof,
                              const Ceilings* ceilings) {
  const double ai = r.problem.work.arithmetic_intensity();
  const auto against = [&](double ridge) {
    return ridge > 0 ? fmt::format("; {:.3g} FLOP/B, {} the ridge at {:.3g}", ai, ai < ridge ? "under" : "over", ridge)
                     : std::string();
  };
  std::string against_ridge = against(roof.ridge_intensity);
  const double flops_per_s = d.throughput ? d.throughput->flops_per_s : 0.0;
  const double bytes_per_s = d.throughput ? d.throughput->bytes_per_s : 0.0;
  if (roof.bound == Bound::memory) {
    // Held against the level its bytes stream from, and that level's ridge.
    const std::string& level = roof.stream_level.empty() ? roof.memory_level : roof.stream_level;
    double ceiling = level_bandwidth(ceilings, level);
    if (!(ceiling > 0)) ceiling = roof.stream_level.empty() ? roof.bandwidth : roof.stream_bandwidth;
    if (ceiling > 0) against_ridge = against(roof.compute_peak / ceiling);
    const double bytes = r.problem.work.bytes;
    if (!(ceiling > 0)) return fmt::format("streams {} from {}{}", format_si(bytes, "B"), level, against_ridge);
    return fmt::format("streams {} from {} at {}, {:.0f}% of the {} measured {} ceiling{}", format_si(bytes, "B"), level,
                       format_si(bytes_per_s, "B/s"), 100 * bytes_per_s / ceiling, format_si(ceiling, "B/s"), level,
                       against_ridge);
  }
  const std::string unit = rate_unit_of(r.problem.dtype);
  std::string e = fmt::format("{} of the {} measured {} ceiling ({:.0f}% of the attainable {}){}",
                              format_si(flops_per_s, unit), format_si(roof.compute_peak, unit), roof.compute_ceiling,
                              100 * roof.fraction_of_attainable, format_si(roof.attainable_flops, unit), against_ridge);
  if (roof.bound == Bound::latency && ceilings && ceilings->dispatch_latency_s > 0)
    e += fmt::format("; its ideal time is under {} dispatches of {}", kLatencyBoundFactor,
                     format_duration(ceilings->dispatch_latency_s));
  return e;
}

// A collective is held against the link it crosses, not a roofline.
Diagnosis diagnose_collective(const Throughput& t, double size_bytes) {
  const LinkShare& share = *t.link;
  const double pct = share.percent;
  const std::string link = share.link.empty() ? "link" : share.link;
  const std::string finding = fmt::format("bus bandwidth at {:.0f}% of the {}", pct, link);
  const std::string evidence = fmt::format("bus bandwidth {} of the {}'s {}, at {} a message",
                                           format_si(t.bus_bytes_per_s.value_or(0.0), "B/s"), link,
                                           format_si(share.link_bytes_per_s, "B/s"), format_si(size_bytes, "B"));
  if (pct >= kNearRoof)
    return {finding, "near the link: little is left but fewer bytes (a narrower dtype, compression)", evidence};
  if (size_bytes < (1 << 20))
    return {finding, "latency-bound at this size: larger messages, or bucket small collectives into one", evidence};
  return {finding,
          pct < kFarFromRoof ? "far below the link at this size: check the topology (nvidia-smi topo -m) and "
                               "NCCL's algorithm and protocol (NCCL_ALGO, NCCL_PROTO)"
                             : "some way below the link: more channels (NCCL_MIN_NCHANNELS) or larger messages",
          evidence};
}
// Work without arithmetic (an embedding's gather, a copy): no place on a FLOP roofline, and
// no ceiling is missing: it is held against the memory level its bytes come from.
Diagnosis no_flops(const ResultRecord& r, const Derived& d, const Ceilings* ceilings) {
  const double bytes = r.problem.work.bytes;
  const double bytes_per_s = d.throughput ? d.throughput->bytes_per_s : 0.0;
  const auto* level = ceilings ? bandwidth_ceiling_for(*ceilings, bytes) : nullptr;
  const std::string no_flops_rule = "a stage with no FLOPs is read by its bandwidth";
  if (!level || !(bytes_per_s > 0))
    return {"no FLOPs (a gather or copy): off the FLOP roofline, read by its bandwidth",
            "fewer bytes moved, or fused into its neighbour",
            fmt::format("0 FLOPs and {} moved{}: {}", format_si(bytes, "B"),
                        bytes_per_s > 0 ? fmt::format(" at {}", format_si(bytes_per_s, "B/s")) : "",
                        ceilings ? no_flops_rule + "; no measured bandwidth ceiling to hold it against"
                                 : no_flops_rule + "; no device profile, so no ceiling to hold it against")};
  const double pct = 100 * bytes_per_s / level->bytes_per_s;
  const std::string evidence = fmt::format("0 FLOPs, {} moved at {}: {:.0f}% of the {} measured {} ceiling ({})",
                                           format_si(bytes, "B"), format_si(bytes_per_s, "B/s"), pct,
                                           format_si(level->bytes_per_s, "B/s"), level->level, no_flops_rule);
  // As the roofline judges latency: its ideal time at the bandwidth under a few dispatches.
  if (ceilings->dispatch_latency_s > 0 && bytes / level->bytes_per_s < kLatencyBoundFactor * ceilings->dispatch_latency_s)
    return {fmt::format("no FLOPs, latency-bound: too small to fill the device ({:.0f}% of the {} bandwidth)", pct, level->level),
            "fuse it into its neighbour, or more tokens a step",
            evidence + fmt::format("; its ideal time {} is under {} dispatches of {}",
                                   format_duration(bytes / level->bytes_per_s), kLatencyBoundFactor,
                                   format_duration(ceilings->dispatch_latency_s))};
  return {fmt::format("no FLOPs (a gather or copy): {:.0f}% of the {} bandwidth", pct, level->level),
          pct >= kNearRoof ? "near the bandwidth: only fewer bytes help (fuse it into its neighbour)"
                           : "below the bandwidth: larger, contiguous reads, or fuse it into its neighbour",
          evidence};
}
Diagnosis diagnose_rules(const ResultRecord& r, const Ceilings* ceilings) {
  if (r.status != Status::ok)
    return {fmt::format("{}: {}", status_name(r.status), r.reason), "see the reason; nothing was measured"};
  const Derived& d = derived_of(r);
  if (d.throughput && d.throughput->link) return diagnose_collective(*d.throughput, r.declared.size_bytes);
  if (!d.roofline && r.problem.work.flops == 0 && r.problem.work.bytes > 0) return no_flops(r, d, ceilings);
  if (!d.roofline)
    return {"no ceiling for this dtype on this device: plotted without a roof",
            "run `rooftop characterize` on this machine so the result can be placed"};
  const auto& roof = *d.roofline;
  double pct = 100.0 * roof.fraction_of_attainable;
  const std::string bound(bound_name(roof.bound));
  const Dtype dtype = r.problem.dtype;
  if (roof.above_ceiling)
    return {fmt::format("{:.0f}% of its roof: above the measured ceiling, so the ceiling is wrong", pct),
            "run `rooftop characterize --merge` on an idle machine: it keeps the best of both"};
  if (slow_generic_path(r))
    return {fmt::format("{:.0f}% of its roof on a generic path: {}", pct, r.generic_path),
            "rooftop has no fast kernel for this layout: the point measures the fallback, not the machine; compare "
            "machines on points with a fast path"};
  // Where the cause is knowable it comes first, whatever the bound: a misaligned GEMM falls
  // back to kernels without the matrix units (bf16 3x5000x7001 ran memory-bound at 24.5%).
  if (pct < kFarFromRoof)
    if (const auto why = misaligned(r))
      return {fmt::format("{}-bound at {:.0f}% of its roof", bound, pct), *why};
  if (roof.bound == Bound::latency)
    return {fmt::format("latency-bound: too small to fill the device ({:.0f}% of the roof)", pct),
            "larger batch or tiles, fuse small operations, or amortize dispatch"};
  if (roof.bound == Bound::memory) {
    // Judged against the level the bytes stream from; the closer level's roof, which a
    // working set up to twice its size may partly hit, is said beside it.
    const std::string& roof_level = roof.memory_level;
    const std::string& level = roof.stream_level.empty() ? roof_level : roof.stream_level;
    std::string finding = fmt::format("memory-bound at {:.0f}% of the {} bandwidth", pct, level);
    if (level != roof_level) {
      finding = fmt::format("memory-bound, streaming from {} at {:.0f}% of its bandwidth ({:.0f}% of the {} roof: the "
                            "working set is under twice the {})",
                            level, 100.0 * roof.fraction_of_stream, pct, roof_level, roof_level);
      pct = 100.0 * roof.fraction_of_stream;
    }
    if (pct < kFarFromRoof) return {finding, "far from the bandwidth roof: access pattern, blocking or prefetch; then autotune"};
    const std::string narrower = narrowness(dtype) >= 3   ? ""
                                 : narrowness(dtype) == 2 ? ", fp8 or int8 data"
                                                          : ", bf16 or narrower data";
    return {finding, fmt::format("{}cut bytes: fuse with neighbours{} or keep data in cache",
                                 pct < kNearRoof ? "some way below the bandwidth roof; or " : "", narrower)};
  }
  const std::string finding = fmt::format("compute-bound at {:.0f}% of the {} peak", pct, roof.compute_ceiling);
  // A faster unit on this machine is named whatever the share of this one's peak: tiles win
  // percent, a narrower dtype's units win multiples.
  const auto unit = faster_unit(dtype, roof.compute_peak, ceilings);
  const std::string also = unit ? fmt::format("; the {} units here are {:.1f}x this peak, if accuracy allows",
                                              unit->dtype, unit->speedup)
                                : "";
  if (pct < kFarFromRoof) return {finding, "far from the peak: larger tiles, better blocking, autotune the implementation" + also};
  if (pct < kNearRoof) return {finding, "some way below the peak: tile shapes, pipelining depth, autotune" + also};
  if (unit)
    return {finding, fmt::format("near this unit's roof: move to the {} matrix units ({:.1f}x this peak) if accuracy "
                                 "allows", unit->dtype, unit->speedup)};
  return {finding, "near the roof: little is left here but less work"};
}

}  // namespace

// The rules' finding and advice, with the measured numbers they rest on where a rule gave none.
Diagnosis diagnose(const ResultRecord& r, const Ceilings* ceilings) {
  auto diagnosis = diagnose_rules(r, ceilings);
  if (!diagnosis.evidence.empty() || r.status != Status::ok) return diagnosis;
  const Derived& d = derived_of(r);
  if (d.roofline) {
    diagnosis.evidence = roofline_evidence(r, d, *d.roofline, ceilings);
    const auto unit = faster_unit(r.problem.dtype, d.roofline->compute_peak, ceilings);
    if (d.roofline->bound == Bound::compute && unit)
      diagnosis.evidence += fmt::format("; the {} units measured {:.1f}x this peak", unit->dtype, unit->speedup);
  } else if (d.throughput && d.throughput->flops_per_s > 0) {
    diagnosis.evidence = fmt::format("{} measured; {}", format_si(d.throughput->flops_per_s, rate_unit_of(r.problem.dtype)),
                                     ceilings ? fmt::format("the run's profile has no {} compute ceiling",
                                                            dtype_name(r.problem.dtype))
                                              : std::string("the run had no device profile"));
  }
  return diagnosis;
}

}  // namespace rooftop::reports
