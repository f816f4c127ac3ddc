#pragma once
// Seeded random inputs, the same for a given seed whatever the thread count. Counter-based
// (splitmix64 of seed and index) so large buffers fill in parallel.
#include <cstdint>
#include <span>
#include <string_view>

namespace rooftop {

std::uint64_t splitmix64(std::uint64_t x);
// A per-point seed from the run's seed and the point's name.
std::uint64_t derive_seed(std::uint64_t run_seed, std::string_view name);
// Uniform in [lo, hi).
double uniform_at(std::uint64_t seed, std::uint64_t index, double lo, double hi);

void fill_uniform(std::span<float> out, std::uint64_t seed, float lo, float hi);
// bf16 bit patterns of values uniform in [lo, hi), rounded to nearest even.
void fill_uniform_bf16(std::span<std::uint16_t> out, std::uint64_t seed, float lo, float hi);
// Integers uniform in [lo, hi].
void fill_uniform_int8(std::span<std::int8_t> out, std::uint64_t seed, int lo, int hi);

}  // namespace rooftop
