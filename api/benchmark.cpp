// The public API's declarations (rooftop/rooftop.hpp): points, the benchmark builder and the
// list of declared benchmarks. Turning them into harness families is declared_families.cpp.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <stdexcept>

#include "api/declared_benchmarks.hpp"
#include "harness/dtype.hpp"
#include "rooftop/rooftop.hpp"

namespace rooftop {

Point::Point(std::vector<std::pair<std::string, std::int64_t>> values, std::string dtype, std::string backend)
    : values_(std::move(values)), dtype_(std::move(dtype)), backend_(std::move(backend)) {}

std::int64_t Point::get(std::string_view axis) const {
  for (const auto& [name, value] : values_)
    if (name == axis) return value;
  std::vector<std::string> names;
  for (const auto& v : values_) names.push_back(v.first);
  throw std::invalid_argument(fmt::format("no axis '{}' in this point; its axes: {}", axis, fmt::join(names, ", ")));
}

std::size_t Point::dtype_bytes() const { return input_size(parse_dtype(dtype_)); }

Benchmark::Benchmark(std::string name) : name_(std::move(name)) {}

Benchmark& Benchmark::description(std::string text) {
  description_ = std::move(text);
  return *this;
}

Benchmark& Benchmark::backend(std::string name) {
  backend_ = std::move(name);
  return *this;
}

Benchmark& Benchmark::dtypes(std::vector<std::string> names) {
  dtypes_ = std::move(names);
  return *this;
}

Benchmark::Axis& Benchmark::axis_named(const std::string& name) {
  for (auto& a : axes_)
    if (a.name == name) return a;
  axes_.push_back({name, {}, {}});
  return axes_.back();
}

Benchmark& Benchmark::axis(std::string name, std::vector<std::int64_t> values) {
  axis_named(name).values = std::move(values);
  return *this;
}

Benchmark& Benchmark::axis(std::string name, std::vector<std::int64_t> values, Tier tier) {
  auto& a = axis_named(name);
  std::erase_if(a.per_tier, [&](const auto& t) { return t.first == tier; });
  a.per_tier.emplace_back(tier, std::move(values));
  return *this;
}

// 2^first .. 2^last (exponents below 0 are left out: axes are positive integers).
Benchmark& Benchmark::power_of_two_axis(std::string name, int first, int last) {
  std::vector<std::int64_t> values;
  for (int e = std::max(first, 0); e <= last && e < 62; ++e) values.push_back(std::int64_t{1} << e);
  return axis(std::move(name), std::move(values));
}

Benchmark& Benchmark::work(WorkFunction f) {
  work_ = std::move(f);
  return *this;
}

Benchmark& Benchmark::memory(BytesFunction f) {
  memory_ = std::move(f);
  return *this;
}

Benchmark& Benchmark::setup(SetupFunction f) {
  setup_ = std::move(f);
  return *this;
}

namespace {
// A deque: references handed out stay valid as benchmarks are added.
std::deque<Benchmark>& declared() {
  static std::deque<Benchmark> benchmarks;
  return benchmarks;
}
}  // namespace

Benchmark& add_benchmark(std::string name) { return declared().emplace_back(std::move(name)); }

const std::deque<Benchmark>& declared_benchmarks() { return declared(); }

}  // namespace rooftop
