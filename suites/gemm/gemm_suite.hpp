#pragma once
namespace rooftop::gemm {
void register_gemm_suite();
}  // namespace rooftop::gemm
