#include "harness/random_fill.hpp"

#include <string_view>

#include "harness/bf16.hpp"

namespace rooftop {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t derive_seed(std::uint64_t run_seed, std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  return splitmix64(run_seed ^ h);
}

double uniform_at(std::uint64_t seed, std::uint64_t index, double lo, double hi) {
  const std::uint64_t bits = splitmix64(seed ^ splitmix64(index));
  const double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1)
  return lo + (hi - lo) * unit;
}

void fill_uniform(std::span<float> out, std::uint64_t seed, float lo, float hi) {
  const auto n = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    out[i] = static_cast<float>(uniform_at(seed, static_cast<std::uint64_t>(i), lo, hi));
}

void fill_uniform_bf16(std::span<std::uint16_t> out, std::uint64_t seed, float lo, float hi) {
  const auto n = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    out[i] = float_to_bf16(static_cast<float>(uniform_at(seed, static_cast<std::uint64_t>(i), lo, hi)));
}

void fill_uniform_int8(std::span<std::int8_t> out, std::uint64_t seed, int lo, int hi) {
  const auto n = static_cast<std::int64_t>(out.size());
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo + 1);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    out[i] = static_cast<std::int8_t>(lo + static_cast<int>(splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(i))) % span));
}

}  // namespace rooftop
