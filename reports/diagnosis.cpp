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
int narrowness(const std::string& dtype) {
  if (dtype == "tf32") return 1;
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp8") return 3;
  if (dtype == "int8") return 4;
  return 0;  // fp32
}

double number(const nlohmann::ordered_json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}
const nlohmann::ordered_json& work_of(const nlohmann::ordered_json& r) { return r.contains("work") ? r["work"] : r; }
const nlohmann::ordered_json& throughput_of(const nlohmann::ordered_json& r) {
  static const nlohmann::ordered_json none;
  return r.contains("throughput") && r["throughput"].is_object() ? r["throughput"] : none;
}
std::string rate_unit_of(const std::string& dtype) { return narrowness(dtype) == 4 ? "OP/s" : "FLOP/s"; }

// A measured ceiling's bandwidth by level name; 0 when the run has none.
double level_bandwidth(const Ceilings* ceilings, const std::string& level) {
  if (ceilings)
    for (const auto& b : ceilings->bandwidth)
      if (b.level == level) return b.bytes_per_s;
  return 0;
}

// What a roofline placement rests on: the rate and the ceiling it was held against, and the
// intensity against the ridge that chose the roof.
std::string roofline_evidence(const nlohmann::ordered_json& r, const nlohmann::ordered_json& roof,
                              const Ceilings* ceilings) {
  const auto& work = work_of(r);
  const auto& t = throughput_of(r);
  const std::string bound = roof.value("bound", std::string());
  const double ai = number(work, "arithmetic_intensity");
  const auto against = [&](double ridge) {
    return ridge > 0 ? fmt::format("; {:.3g} FLOP/B, {} the ridge at {:.3g}", ai, ai < ridge ? "under" : "over", ridge)
                     : std::string();
  };
  std::string against_ridge = against(number(roof, "ridge_intensity"));
  if (bound == "memory") {
    // Held against the level its bytes stream from, and that level's ridge.
    const std::string level = roof.value("stream_level", roof.value("memory_level", std::string()));
    double ceiling = level_bandwidth(ceilings, level);
    if (!(ceiling > 0)) ceiling = number(roof, "bandwidth_bytes_per_s");
    if (ceiling > 0) against_ridge = against(number(roof, "compute_peak_flops_per_s") / ceiling);
    const double bytes = number(work, "memory_bytes") > 0 ? number(work, "memory_bytes") : number(work, "bytes");
    if (!(ceiling > 0)) return fmt::format("streams {} from {}{}", format_si(bytes, "B"), level, against_ridge);
    return fmt::format("streams {} from {} at {}, {:.0f}% of the {} measured {} ceiling{}", format_si(bytes, "B"), level,
                       format_si(number(t, "bytes_per_s"), "B/s"),
                       100 * number(t, "bytes_per_s") / ceiling, format_si(ceiling, "B/s"), level, against_ridge);
  }
  const std::string unit = rate_unit_of(r.value("dtype", ""));
  const double peak = number(roof, "compute_peak_flops_per_s");
  std::string e = fmt::format("{} of the {} measured {} ceiling ({:.0f}% of the attainable {}){}",
                              format_si(number(t, "flops_per_s"), unit), format_si(peak, unit),
                              roof.value("compute_ceiling", std::string()), number(roof, "percent_of_attainable"),
                              format_si(number(roof, "attainable_flops_per_s"), unit), against_ridge);
  if (bound == "latency" && ceilings && ceilings->dispatch_latency_s > 0)
    e += fmt::format("; its ideal time is under {} dispatches of {}", kLatencyBoundFactor,
                     format_duration(ceilings->dispatch_latency_s));
  return e;
}

struct FasterUnit {
  std::string dtype;
  double speedup = 0;  // its peak over the row's
};
// The next narrower dtype whose unit is markedly faster here: the smallest step down.
std::optional<FasterUnit> faster_unit(const std::string& dtype, double peak, const Ceilings* ceilings) {
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
std::optional<std::string> misaligned(const nlohmann::ordered_json& r) {
  if (r.value("family", "") != "gemm" || !r.contains("params") || !r["params"].is_object()) return std::nullopt;
  const std::string dtype = r.value("dtype", "");
  const int per_16_bytes = narrowness(dtype) >= 3 ? 16 : narrowness(dtype) == 2 ? 8 : 4;
  for (const char* dim : {"k", "n", "m"}) {
    const auto& p = r["params"];
    if (!p.contains(dim) || !p[dim].is_number_integer()) continue;
    const auto v = p[dim].get<std::int64_t>();
    if (v % per_16_bytes != 0 && (std::string(dim) != "m" || v > 16))
      return fmt::format("{} = {} is not a multiple of {} ({} rows of 16 bytes): matrix-unit kernels need them; pad {} "
                         "to {}", dim == std::string("k") ? "K" : dim == std::string("n") ? "N" : "M", v, per_16_bytes,
                         dtype, dim, (v + per_16_bytes - 1) / per_16_bytes * per_16_bytes);
  }
  return std::nullopt;
}

// A collective is held against the link it crosses, not a roofline.
Diagnosis diagnose_collective(const nlohmann::ordered_json& t, double size_bytes) {
  const double pct = t["percent_of_link"].get<double>();
  const std::string link = t.value("link", std::string("link"));
  const std::string finding = fmt::format("bus bandwidth at {:.0f}% of the {}", pct, link);
  const std::string evidence = fmt::format("bus bandwidth {} of the {}'s {}, at {} a message",
                                           format_si(number(t, "bus_bytes_per_s"), "B/s"), link,
                                           format_si(number(t, "link_bytes_per_s"), "B/s"), format_si(size_bytes, "B"));
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
Diagnosis no_flops(const nlohmann::ordered_json& r, const Ceilings* ceilings) {
  const double bytes_per_s = r["throughput"].is_object() ? r["throughput"].value("bytes_per_s", 0.0) : 0.0;
  const auto* level = ceilings ? bandwidth_ceiling_for(*ceilings, r["work"]["bytes"].get<double>()) : nullptr;
  const double bytes = r["work"]["bytes"].get<double>();
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
Diagnosis diagnose_rules(const nlohmann::ordered_json& r, const Ceilings* ceilings) {
  const std::string status = r.value("status", "");
  if (status != "ok") return {fmt::format("{}: {}", status, r.value("reason", "")), "see the reason; nothing was measured"};
  if (r.contains("throughput") && r["throughput"].is_object() && r["throughput"].contains("percent_of_link"))
    return diagnose_collective(r["throughput"], r["params"].value("size_bytes", 0.0));
  const auto& roof = r["roofline"];
  const auto& work = r.contains("work") ? r["work"] : r;
  if (!roof.is_object() && work.is_object() && work.value("flops", -1.0) == 0 && work.value("bytes", 0.0) > 0)
    return no_flops(r, ceilings);
  if (!roof.is_object())
    return {"no ceiling for this dtype on this device: plotted without a roof",
            "run `rooftop characterize` on this machine so the result can be placed"};
  double pct = roof["percent_of_attainable"].get<double>();
  const std::string bound = roof["bound"].get<std::string>();
  const std::string dtype = r.value("dtype", "");
  if (roof["above_ceiling"].get<bool>())
    return {fmt::format("{:.0f}% of its roof: above the measured ceiling, so the ceiling is wrong", pct),
            "run `rooftop characterize --merge` on an idle machine: it keeps the best of both"};
  if (roof.value("slow_generic_path", false))
    return {fmt::format("{:.0f}% of its roof on a generic path: {}", pct, r.value("generic_path", std::string())),
            "rooftop has no fast kernel for this layout: the point measures the fallback, not the machine; compare "
            "machines on points with a fast path"};
  // Where the cause is knowable it comes first, whatever the bound: a misaligned GEMM falls
  // back to kernels without the matrix units (bf16 3x5000x7001 ran memory-bound at 24.5%).
  if (pct < kFarFromRoof)
    if (const auto why = misaligned(r))
      return {fmt::format("{}-bound at {:.0f}% of its roof", bound, pct), *why};
  if (bound == "latency")
    return {fmt::format("latency-bound: too small to fill the device ({:.0f}% of the roof)", pct),
            "larger batch or tiles, fuse small operations, or amortize dispatch"};
  if (bound == "memory") {
    // Judged against the level the bytes stream from; the closer level's roof, which a
    // working set up to twice its size may partly hit, is said beside it.
    const std::string roof_level = roof["memory_level"].get<std::string>();
    const std::string level = roof.value("stream_level", roof_level);
    std::string finding = fmt::format("memory-bound at {:.0f}% of the {} bandwidth", pct, level);
    if (level != roof_level) {
      finding = fmt::format("memory-bound, streaming from {} at {:.0f}% of its bandwidth ({:.0f}% of the {} roof: the "
                            "working set is under twice the {})",
                            level, roof["percent_of_stream_level"].get<double>(), pct, roof_level, roof_level);
      pct = roof["percent_of_stream_level"].get<double>();
    }
    if (pct < kFarFromRoof) return {finding, "far from the bandwidth roof: access pattern, blocking or prefetch; then autotune"};
    const std::string narrower = narrowness(dtype) >= 3   ? ""
                                 : narrowness(dtype) == 2 ? ", fp8 or int8 data"
                                                          : ", bf16 or narrower data";
    return {finding, fmt::format("{}cut bytes: fuse with neighbours{} or keep data in cache",
                                 pct < kNearRoof ? "some way below the bandwidth roof; or " : "", narrower)};
  }
  const std::string finding =
      fmt::format("compute-bound at {:.0f}% of the {} peak", pct, roof["compute_ceiling"].get<std::string>());
  // A faster unit on this machine is named whatever the share of this one's peak: tiles win
  // percent, a narrower dtype's units win multiples.
  const auto unit = faster_unit(dtype, roof["compute_peak_flops_per_s"].get<double>(), ceilings);
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

Diagnosis diagnose(const nlohmann::ordered_json& r, const Ceilings* ceilings) {
  auto d = diagnose_rules(r, ceilings);
  if (!d.evidence.empty() || r.value("status", "") != "ok") return d;
  const auto& roof = r.contains("roofline") ? r["roofline"] : r;
  if (roof.is_object() && roof.contains("bound")) {
    d.evidence = roofline_evidence(r, roof, ceilings);
    const auto unit = faster_unit(r.value("dtype", ""), number(roof, "compute_peak_flops_per_s"), ceilings);
    if (roof.value("bound", std::string()) == "compute" && unit)
      d.evidence += fmt::format("; the {} units measured {:.1f}x this peak", unit->dtype, unit->speedup);
  } else if (number(throughput_of(r), "flops_per_s") > 0) {
    d.evidence = fmt::format("{} measured; {}", format_si(number(throughput_of(r), "flops_per_s"),
                                                           rate_unit_of(r.value("dtype", ""))),
                             ceilings ? fmt::format("the run's profile has no {} compute ceiling", r.value("dtype", ""))
                                      : std::string("the run had no device profile"));
  }
  return d;
}

Diagnosis diagnose(const ResultRecord& record, const Ceilings* ceilings) { return diagnose(record_to_json(record), ceilings); }

}  // namespace rooftop::reports
