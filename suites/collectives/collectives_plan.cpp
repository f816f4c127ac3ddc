#include "suites/collectives/collectives_plan.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "harness/errors.hpp"

namespace rooftop::collectives {

std::size_t parse_size(std::string_view text) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::string_view unit(end, text.data() + text.size() - end);
  const std::size_t scale = unit.empty() ? 1 : unit == "K" ? 1ull << 10 : unit == "M" ? 1ull << 20 : unit == "G" ? 1ull << 30 : 0;
  if (ec != std::errc() || scale == 0 || value == 0)
    throw InputError(fmt::format("collective size '{}': write a positive byte count with an optional K, M or G, e.g. 4G", text));
  return value * scale;
}

std::string size_label(std::size_t bytes) {
  for (auto [unit, scale] : {std::pair{'G', 1ull << 30}, std::pair{'M', 1ull << 20}, std::pair{'K', 1ull << 10}})
    if (bytes % scale == 0) return fmt::format("{}{}", bytes / scale, unit);
  return fmt::format("{}", bytes);
}

std::vector<std::size_t> size_range(std::size_t min, std::size_t max, double factor) {
  if (min > max) throw InputError(fmt::format("collective sizes: the minimum {} is above the maximum {}", min, max));
  if (factor <= 1 && min != max) throw InputError("collective sizes: the factor must be above 1");
  std::vector<std::size_t> sizes;
  for (double s = static_cast<double>(min); s <= static_cast<double>(max) * (1 + 1e-12); s *= factor) {
    sizes.push_back(static_cast<std::size_t>(std::llround(s)));
    if (min == max) break;
  }
  return sizes;
}

std::string unusable_size(const Collective& c, std::size_t size, Dtype dtype, int ranks) {
  if (c.reduces && ranks > max_exact_ranks(dtype))
    return fmt::format("{} sums of {} ranks are not exact in {} (at most {}): the exact check cannot hold", c.name, ranks,
                       dtype_name(dtype), max_exact_ranks(dtype));
  const std::size_t elem = input_size(dtype);
  // Chunked collectives (a chunk a rank) take whole elements a rank; the others whole elements.
  const bool chunked = ranks > 1 && c.counts(elem * ranks, elem, ranks).call == 1;
  const std::size_t unit = elem * (chunked ? ranks : 1);
  if (size % unit != 0)
    return fmt::format("{} bytes is not a whole number of {}-byte units for {} of {} on {} ranks: refused, not padded",
                       size, unit, c.name, dtype_name(dtype), ranks);
  return {};
}

Problem make_collective_problem(const Collective& c, Dtype dtype, std::size_t size, bool in_place, int ranks,
                                std::string_view backend) {
  if (in_place && !c.has_in_place) throw InputError(fmt::format("{} has no in-place form here", c.name));
  if (dtype == Dtype::tf32) throw InputError("collectives move fp32, bf16, fp16, fp8 or int8; tf32 is a matrix-unit mode");
  const Counts n = c.counts(size, input_size(dtype), ranks);
  Problem p;
  p.family = "collectives";
  p.backend = std::string(backend);
  p.dtype = dtype;
  p.shape = fmt::format("{}_{}_{}_r{}", c.name, size_label(size), in_place ? "inplace" : "oop", ranks);
  p.params = {{"collective", c.name}, {"size_bytes", size}, {"ranks", ranks}, {"in_place", in_place},
              {"count", n.call}, {"bus_factor", c.bus_factor(ranks)}, {"root", 0}};
  attach_shape(p, CollectivePoint{&c, size, in_place, ranks});
  p.work = {0.0, static_cast<double>(size)};  // algbw = size / time (nccl-tests)
  const double elem = static_cast<double>(input_size(dtype));
  p.memory_bytes = (in_place ? std::max(n.send, n.recv) : n.send + n.recv) * elem;
  return p;
}

const CollectivePoint& point_of(const Problem& p) { return shape_as<CollectivePoint>(p); }
const Collective& collective_of(const Problem& p) { return *point_of(p).collective; }

std::vector<Problem> parse_collective_shape(std::string_view text, Dtype dtype, int ranks, std::string_view backend) {
  const auto usage = [&] {
    return InputError(fmt::format("collective shape '{}': write NAME:MIN[-MAX[:fFACTOR]][:inplace], e.g. all_reduce:1K-4G:f2; "
                                  "names: all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv",
                                  text));
  };
  std::vector<std::string_view> f;
  for (std::size_t at = 0;;) {
    const auto next = text.find(':', at);
    f.push_back(text.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    if (next == std::string_view::npos) break;
    at = next + 1;
  }
  const Collective* c = f.size() >= 2 ? find_collective(f[0]) : nullptr;
  if (!c) throw usage();
  const auto dash = f[1].find('-');
  const std::size_t min = parse_size(f[1].substr(0, dash));
  const std::size_t max = dash == std::string_view::npos ? min : parse_size(f[1].substr(dash + 1));
  double factor = 2;
  bool in_place = false;
  bool has_factor = false;
  for (std::size_t i = 2; i < f.size(); ++i) {
    if (f[i] == "inplace" && !in_place) in_place = true;
    else if (f[i].size() > 1 && f[i][0] == 'f' && !has_factor) {
      has_factor = true;
      const auto [end, ec] = std::from_chars(f[i].data() + 1, f[i].data() + f[i].size(), factor);
      if (ec != std::errc() || end != f[i].data() + f[i].size()) throw usage();
    } else {
      throw usage();
    }
  }
  std::vector<Problem> points;
  for (auto size : size_range(min, max, factor)) points.push_back(make_collective_problem(*c, dtype, size, in_place, ranks, backend));
  return points;
}


}  // namespace rooftop::collectives
