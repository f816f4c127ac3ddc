#include "harness/dtype.hpp"

#include <array>

#include "harness/errors.hpp"

namespace rooftop {
namespace {
constexpr std::array kAll = {Dtype::fp32, Dtype::tf32, Dtype::bf16, Dtype::fp16, Dtype::fp8, Dtype::int8};
}

std::span<const Dtype> all_dtypes() { return kAll; }

std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::fp32: return "fp32";
    case Dtype::tf32: return "tf32";
    case Dtype::bf16: return "bf16";
    case Dtype::fp16: return "fp16";
    case Dtype::fp8: return "fp8";
    case Dtype::int8: return "int8";
  }
  return "?";
}

std::optional<Dtype> find_dtype(std::string_view text) {
  for (Dtype d : kAll)
    if (dtype_name(d) == text) return d;
  return std::nullopt;
}

Dtype parse_dtype(std::string_view text) {
  if (const auto d = find_dtype(text)) return *d;
  throw InputError("unknown dtype '" + std::string(text) + "': choose one of fp32, tf32, bf16, fp16, fp8, int8");
}

std::size_t input_size(Dtype d) {
  switch (d) {
    case Dtype::fp32:
    case Dtype::tf32: return 4;
    case Dtype::bf16:
    case Dtype::fp16: return 2;
    case Dtype::fp8:
    case Dtype::int8: return 1;
  }
  return 0;
}

std::size_t accumulator_output_size(Dtype d) {
  switch (d) {
    case Dtype::fp32:
    case Dtype::tf32:
    case Dtype::int8: return 4;
    case Dtype::bf16:
    case Dtype::fp16:
    case Dtype::fp8: return 2;  // fp8 products are written as bf16
  }
  return 0;
}

bool is_integer(Dtype d) { return d == Dtype::int8; }

}  // namespace rooftop
