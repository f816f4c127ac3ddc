#pragma once
// Element types of the problems rooftop measures. int8 means s8 x s8 with s32 results.
#include <cstddef>
#include <string>
#include <string_view>

namespace rooftop {

enum class Dtype { fp32, bf16, int8 };

std::string_view dtype_name(Dtype dtype);
Dtype parse_dtype(std::string_view text);  // throws InputError listing the dtypes
std::size_t input_size(Dtype dtype);       // bytes per input element
std::size_t accumulator_output_size(Dtype dtype);  // bytes per output element of a GEMM

}  // namespace rooftop
