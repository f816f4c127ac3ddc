// Declared benchmarks as harness families: the sweep is the product of the axes, the shape
// label names each axis's value ("rows4096_cols8192"), and a Case runs behind Instance.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <set>
#include <stdexcept>

#include "api/declared_benchmarks.hpp"
#include "harness/backend.hpp"
#include "harness/errors.hpp"
#include "harness/family.hpp"
#include "harness/registry.hpp"
#include "harness/tier.hpp"

namespace rooftop {
namespace {

using AxisValues = std::vector<std::pair<std::string, std::int64_t>>;

// The values of each axis in a tier: the tier's own where declared; smoke takes the first.
std::vector<std::vector<std::int64_t>> tier_values(const Benchmark& b, Tier tier) {
  std::vector<std::vector<std::int64_t>> out;
  for (const auto& a : b.axes()) {
    auto values = a.values;
    for (const auto& [t, v] : a.per_tier)
      if (t == tier) values = v;
    if (tier == Tier::smoke && values.size() > 1 && std::none_of(a.per_tier.begin(), a.per_tier.end(), [](const auto& t) {
          return t.first == Tier::smoke;
        }))
      values = {values.front()};
    out.push_back(std::move(values));
  }
  return out;
}

std::string shape_label(const AxisValues& values) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : values) parts.push_back(fmt::format("{}{}", name, value));
  return parts.empty() ? "default" : fmt::format("{}", fmt::join(parts, "_"));
}

Problem make_problem(const Benchmark& b, const AxisValues& values, Dtype dtype, const std::string& backend) {
  const Point point(values, std::string(dtype_name(dtype)), backend);
  Problem p;
  p.family = b.name();
  p.backend = backend;
  p.dtype = dtype;
  p.shape = shape_label(values);
  for (const auto& [name, value] : values) p.params[name] = value;
  attach_shape(p, values);
  if (b.work_function()) p.work = b.work_function()(point);
  if (b.memory_function()) p.memory_bytes = b.memory_function()(point);
  return p;
}

// Every combination of the axes' values, the first axis slowest.
std::vector<AxisValues> product(const Benchmark& b, const std::vector<std::vector<std::int64_t>>& values) {
  std::vector<AxisValues> out{{}};
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::vector<AxisValues> next;
    for (const auto& prefix : out)
      for (const auto v : values[i]) {
        auto row = prefix;
        row.emplace_back(b.axes()[i].name, v);
        next.push_back(std::move(row));
      }
    out = std::move(next);
  }
  return out;
}

// A user's --shape: the axes' values in declaration order, joined by 'x' ("4096x8192").
AxisValues parse_shape(const Benchmark& b, std::string_view shape) {
  AxisValues values;
  if (b.axes().empty()) throw InputError(fmt::format("{}: has no axes, so no shapes: leave --shape out", b.name()));
  std::size_t start = 0;
  for (std::size_t i = 0; i < b.axes().size(); ++i) {
    const auto end = i + 1 < b.axes().size() ? shape.find('x', start) : shape.size();
    const auto text = shape.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (end == std::string_view::npos || text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v <= 0)
      throw InputError(fmt::format("{}: bad shape '{}': write the axes' values as positive integers joined by 'x' ({})",
                                   b.name(), shape, "e.g. " + [&] {
                                     std::vector<std::string> ex;
                                     for (const auto& a : b.axes()) ex.push_back(std::to_string(a.values.empty() ? 1 : a.values.front()));
                                     return fmt::format("{}", fmt::join(ex, "x"));
                                   }()));
    values.emplace_back(b.axes()[i].name, v);
    start = end + 1;
  }
  return values;
}

// A Case behind the harness's Instance.
// A Case's Skip becomes the harness's; anything else not a std::exception becomes one, so
// a throw of any type is one point's error, not the end of the run.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Skip& e) {
    throw PointSkipped(e.what());
  } catch (const std::exception&) {
    throw;
  } catch (...) {
    throw std::runtime_error("the benchmark threw something that is not a std::exception");
  }
}

class DeclaredInstance final : public Instance {
 public:
  explicit DeclaredInstance(std::unique_ptr<Case> c) : case_(std::move(c)) {}
  std::string implementation() const override { return case_->implementation(); }
  Correctness check() override {
    const Check c = guarded([&] { return case_->check(); });
    const bool passed = c.elements_checked > 0 && c.max_error_ratio <= 1.0;  // false for NaN too
    return {passed, c.elements_checked, c.elements_total, c.max_abs_error, c.max_error_ratio,
            c.elements_checked > 0 ? c.tolerance : "nothing was checked (Check::elements_checked is 0)", c.worst_element};
  }
  void run() override { guarded([&] { case_->run(); }); }

 private:
  std::unique_ptr<Case> case_;
};

}  // namespace

void check_declaration(const Benchmark& b) {
  const auto where = fmt::format("benchmark '{}'", b.name());
  if (b.name().empty() || b.name().find_first_of("/ \t") != std::string::npos)
    throw InputError(fmt::format("{}: a name must be non-empty, without '/' or spaces", where));
  if (family_named(b.name())) throw InputError(fmt::format("{}: the name is declared twice", where));
  if (!b.setup_function()) throw InputError(fmt::format("{}: no setup(): declare how a point is set up", where));
  if (!b.work_function()) throw InputError(fmt::format("{}: no work(): declare its FLOPs and bytes (the roofline needs them)", where));
  if (b.dtype_names().empty()) throw InputError(fmt::format("{}: no dtypes", where));
  for (const auto& d : b.dtype_names()) (void)parse_dtype(d);
  std::vector<std::string> built;
  for (const auto& backend : backends()) built.push_back(std::string(backend->name()));
  if (std::find(built.begin(), built.end(), b.backend_name()) == built.end())
    throw InputError(fmt::format("{}: backend '{}' is not in this build of rooftop (built: {})", where, b.backend_name(),
                                 fmt::join(built, ", ")));
  // Parameters the harness writes or reads in every point (harness/results.cpp's
  // MeasurementFacts and DeclaredFacts, the runner's tile): an axis of that name would clash.
  static const std::set<std::string> kReserved{"cache", "tile", "tile_source", "of", "stage", "timing", "link",
                                               "link_bytes_per_s", "bus_factor", "tokens_per_iteration", "kind", "ranks"};
  for (const auto& a : b.axes()) {
    if (a.name.empty() || a.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos)
      throw InputError(fmt::format("{}: axis '{}': name axes with lower-case letters and '_'", where, a.name));
    if (kReserved.count(a.name))
      throw InputError(fmt::format("{}: axis '{}': the harness keeps that parameter name; choose another", where, a.name));
    std::vector<const std::vector<std::int64_t>*> lists{&a.values};
    for (const auto& t : a.per_tier) lists.push_back(&t.second);
    for (const auto* values : lists) {
      const std::set<std::int64_t> distinct(values->begin(), values->end());
      if (values->empty() || *distinct.begin() <= 0 || distinct.size() != values->size())
        throw InputError(fmt::format("{}: axis '{}' needs distinct positive values, in every tier", where, a.name));
    }
  }
  // The work of a first point, so an axis name misspelt in work() shows now, not mid-run.
  {
    AxisValues first;
    for (const auto& a : b.axes()) first.emplace_back(a.name, a.values.front());
    try {
      const Work w = b.work_function()(Point(first, b.dtype_names().front(), b.backend_name()));
      if (!(w.flops >= 0) || !(w.bytes > 0))
        throw InputError(fmt::format("{}: work() gave {} FLOPs and {} bytes: bytes must be positive", where, w.flops, w.bytes));
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      throw InputError(fmt::format("{}: work() failed on its first point: {}", where, e.what()));
    }
  }
}

namespace {

Family make_family(const Benchmark& b) {
  Family f;
  f.name = b.name();
  f.description = b.description_text().empty() ? "declared through rooftop's API" : b.description_text();
  for (const auto& d : b.dtype_names()) f.dtypes.push_back(parse_dtype(d));
  std::vector<std::string> syntax;
  for (const auto& a : b.axes()) syntax.push_back(a.name);
  f.shape_syntax = fmt::format("{}", fmt::join(syntax, "x"));
  f.shape_points = [&b](std::string_view shape, Dtype dtype, const PlanContext& c) {
    return std::vector<Problem>{make_problem(b, parse_shape(b, shape), dtype, c.backend)};
  };
  f.sweep = [&b](const PlanContext& c) {
    std::vector<Problem> points;
    if (c.backend != b.backend_name()) return points;
    for (const auto& values : product(b, tier_values(b, c.tier)))
      for (const auto& d : b.dtype_names()) points.push_back(make_problem(b, values, parse_dtype(d), c.backend));
    return points;
  };
  return f;
}

}  // namespace

void register_declared_benchmarks() {
  for (const auto& b : declared_benchmarks()) {
    check_declaration(b);
    register_family(make_family(b));
    register_implementation(b.name(), b.backend_name(), [&b](const Problem& p, const SetupContext& s) -> std::unique_ptr<Instance> {
      const auto& values = shape_as<AxisValues>(p);  // the declared axes, as make_problem attached them
      auto c = guarded([&] { return b.setup_function()(Point(values, std::string(dtype_name(p.dtype)), p.backend), s.seed); });
      if (!c) throw std::runtime_error(fmt::format("{}: setup() returned no Case", b.name()));
      return std::make_unique<DeclaredInstance>(std::move(c));
    });
  }
}

}  // namespace rooftop
