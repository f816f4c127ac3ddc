#include "suites/gemm/gemm_problem.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>

#include "devices/backend_traits.hpp"
#include "harness/errors.hpp"

namespace rooftop::gemm {
namespace {
bool on_gpu(std::string_view backend) { return backend_traits(backend).gpu; }

// cuBLASLt's workspace, beside the operands.
constexpr double kGpuWorkspaceBytes = 64.0 * (1 << 20);
}  // namespace

Work gemm_work(const GemmShape& s, Dtype dtype) {
  const double m = static_cast<double>(s.m), n = static_cast<double>(s.n), k = static_cast<double>(s.k);
  const double in = static_cast<double>(input_size(dtype)), out = static_cast<double>(accumulator_output_size(dtype));
  return {2.0 * m * n * k, (m * k + k * n) * in + m * n * out};
}

Problem make_gemm_problem(const GemmShape& s, Dtype dtype, std::string_view backend, std::string_view set) {
  Problem p;
  p.family = "gemm";
  p.backend = std::string(backend);
  p.dtype = dtype;
  p.shape = fmt::format("m{}_n{}_k{}", s.m, s.n, s.k);
  p.params = {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"set", std::string(set)},
              {"layout", on_gpu(backend) ? "A [M,K] row-major, B stored [N,K] (weights as nn.Linear keeps them), C [M,N] row-major"
                                         : "A row-major, B prepacked by the library, C row-major"}};
  if (dtype == Dtype::fp8) p.params["fp8"] = "e4m3 inputs with per-tensor scales, bf16 output";
  attach_shape(p, s);
  p.work = gemm_work(s, dtype);
  // GPU: A, B, C and the library's workspace. CPU: A, B (plain and packed), C.
  p.memory_bytes = on_gpu(backend) ? p.work.bytes + kGpuWorkspaceBytes
                                   : p.work.bytes + static_cast<double>(s.k) * static_cast<double>(s.n) * static_cast<double>(input_size(dtype));
  return p;
}

GemmShape parse_gemm_shape(std::string_view text) {
  GemmShape s;
  std::int64_t* dims[] = {&s.m, &s.n, &s.k};
  std::string_view rest = text;
  for (int i = 0; i < 3; ++i) {
    const auto x = rest.find('x');
    const std::string_view part = i < 2 ? rest.substr(0, x) : rest;
    if ((i < 2 && x == std::string_view::npos) || part.empty())
      throw InputError(fmt::format("GEMM shape '{}': write it as MxNxK, e.g. 2048x2048x2048", text));
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && v > std::numeric_limits<std::int32_t>::max()))
      throw InputError(fmt::format("GEMM shape '{}': '{}' is too large (at most 2147483647)", text, part));
    if (ec != std::errc() || end != part.data() + part.size())
      throw InputError(fmt::format("GEMM shape '{}': '{}' is not a whole number; write it as MxNxK", text, part));
    if (v <= 0) throw InputError(fmt::format("GEMM shape '{}': every dimension must be positive, got {}", text, v));
    *dims[i] = v;
    if (i < 2) rest = rest.substr(x + 1);
  }
  return s;
}

const GemmShape& shape_of(const Problem& p) { return shape_as<GemmShape>(p); }


}  // namespace rooftop::gemm
