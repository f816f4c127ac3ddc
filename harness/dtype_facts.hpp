#pragma once
// What every suite needs to know of an element type, in one place: how to read, write and
// poison its elements on the host, its unit roundoff and the range random inputs take.
#include <cstddef>

#include "harness/dtype.hpp"

namespace rooftop {

// Element i of a buffer of `dtype` inputs, widened to double (int8 as its integer; tf32 is
// stored as fp32).
double load_element(Dtype dtype, const void* base, std::size_t i);
// Writes v, rounded to nearest even (int8: truncated toward zero; the caller keeps it in range).
void store_element(Dtype dtype, void* base, std::size_t i, double v);
// Fills n elements with a value no correct result takes: NaN for the float types (fp8 e4m3
// included), 127 for int8.
void poison_elements(Dtype dtype, void* base, std::size_t n);
// The relative rounding error of one stored value: 2^-24 fp32, 2^-11 tf32 and fp16, 2^-8
// bf16, 2^-4 fp8 e4m3; 0 for int8 (exact).
double unit_roundoff(Dtype dtype);

// The interval random inputs are drawn from: [-1, 1) for the float types, the integers
// [-64, 64] for int8 (inclusive; sums of K products stay exact in int32 for K below 2^17).
struct FillRange {
  double lo = -1, hi = 1;
};
FillRange fill_range(Dtype dtype);

}  // namespace rooftop
