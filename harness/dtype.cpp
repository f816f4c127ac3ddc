#include "harness/dtype.hpp"

#include "harness/errors.hpp"

namespace rooftop {

std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::fp32: return "fp32";
    case Dtype::bf16: return "bf16";
    case Dtype::int8: return "int8";
  }
  return "?";
}

Dtype parse_dtype(std::string_view text) {
  for (Dtype d : {Dtype::fp32, Dtype::bf16, Dtype::int8})
    if (dtype_name(d) == text) return d;
  throw InputError("unknown dtype '" + std::string(text) + "': choose one of fp32, bf16, int8");
}

std::size_t input_size(Dtype d) { return d == Dtype::fp32 ? 4 : d == Dtype::bf16 ? 2 : 1; }

std::size_t accumulator_output_size(Dtype d) { return d == Dtype::bf16 ? 2 : 4; }

}  // namespace rooftop
