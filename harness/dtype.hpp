#pragma once
// Element types of the problems rooftop measures. int8 means s8 x s8 with s32 results;
// tf32 is fp32 data multiplied on the matrix units at tf32 precision; fp8 is e4m3 inputs
// with bf16 results.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rooftop {

enum class Dtype { fp32, tf32, bf16, fp16, fp8, int8 };

std::span<const Dtype> all_dtypes();

// The one spelling of a dtype ("fp32", "bf16"), in names, files and tables alike; and its reverse.
std::string_view dtype_name(Dtype dtype);
Dtype parse_dtype(std::string_view text);  // throws InputError listing the dtypes
// The reverse where a name may be another's (a ceiling's unit measured for a type rooftop has no
// problems in): nullopt for it.
std::optional<Dtype> find_dtype(std::string_view text);
std::size_t input_size(Dtype dtype);       // bytes per input element
std::size_t accumulator_output_size(Dtype dtype);  // bytes per output element of a GEMM
bool is_integer(Dtype dtype);

}  // namespace rooftop
