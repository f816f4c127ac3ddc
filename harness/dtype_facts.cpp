#include "harness/dtype_facts.hpp"

#include <cstdint>
#include <cstring>

#include "harness/bf16.hpp"
#include "harness/fp16.hpp"
#include "harness/fp8.hpp"

namespace rooftop {

double load_element(Dtype d, const void* base, std::size_t i) {
  switch (d) {
    case Dtype::fp32:
    case Dtype::tf32: return static_cast<const float*>(base)[i];
    case Dtype::bf16: return bf16_to_float(static_cast<const std::uint16_t*>(base)[i]);
    case Dtype::fp16: return half_to_float(static_cast<const std::uint16_t*>(base)[i]);
    case Dtype::fp8: return fp8_e4m3_to_float(static_cast<const std::uint8_t*>(base)[i]);
    case Dtype::int8: return static_cast<const std::int8_t*>(base)[i];
  }
  return 0;
}

void store_element(Dtype d, void* base, std::size_t i, double v) {
  const auto f = static_cast<float>(v);
  switch (d) {
    case Dtype::fp32:
    case Dtype::tf32: static_cast<float*>(base)[i] = f; break;
    case Dtype::bf16: static_cast<std::uint16_t*>(base)[i] = float_to_bf16(f); break;
    case Dtype::fp16: static_cast<std::uint16_t*>(base)[i] = float_to_half(f); break;
    case Dtype::fp8: static_cast<std::uint8_t*>(base)[i] = float_to_fp8_e4m3(f); break;
    case Dtype::int8: static_cast<std::int8_t*>(base)[i] = static_cast<std::int8_t>(v); break;
  }
}

void poison_elements(Dtype d, void* base, std::size_t n) {
  // All bits set is a NaN in every float format here (fp8 e4m3's only NaN is S.1111.111).
  if (d == Dtype::int8) std::memset(base, 0x7f, n);
  else std::memset(base, 0xff, n * input_size(d));
}

double unit_roundoff(Dtype d) {
  switch (d) {
    case Dtype::fp32: return 0x1p-24;
    case Dtype::tf32:
    case Dtype::fp16: return 0x1p-11;
    case Dtype::bf16: return 0x1p-8;
    case Dtype::fp8: return 0x1p-4;
    case Dtype::int8: return 0;
  }
  return 0;
}

FillRange fill_range(Dtype d) { return is_integer(d) ? FillRange{-64, 64} : FillRange{-1, 1}; }

}  // namespace rooftop
