#pragma once
// Numbers for people: a value with the SI prefix that keeps its mantissa in [1, 1000)
// ("612.3 TFLOP/s", "3.351 TB/s", "85.20 us"), and the rate unit of a dtype.
#include <string>
#include <string_view>

#include "harness/dtype.hpp"

namespace rooftop {

// `digits` significant digits, fixed notation: 612.3 TFLOP/s, never 6.123e+05 GFLOP/s.
std::string format_si(double value, std::string_view unit, int digits = 4);
// Seconds as ns, us, ms or s.
std::string format_duration(double seconds, int digits = 4);
// "OP/s" for integer dtypes (int8 multiply-adds are not floating point), else "FLOP/s".
std::string_view rate_unit(Dtype dtype);

// The rate a point's roof bounds, formatted: B/s under a memory roof, FLOP/s (OP/s) under a
// compute roof, and under latency the one nearer its roof. Without ceilings (bound empty)
// FLOP/s, or B/s for work without FLOPs (a collective).
std::string bound_rate(Dtype dtype, std::string_view bound, double flops_per_s, double bytes_per_s,
                       double compute_peak = 0, double bandwidth = 0);

}  // namespace rooftop
