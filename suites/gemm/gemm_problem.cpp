#include "suites/gemm/gemm_problem.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>

#include "harness/errors.hpp"

namespace rooftop::gemm {
namespace {
// Llama-3-8B's projections, (N, K): q/o, fused qkv (4096 + 2 x 1024), gate/up, down.
constexpr GemmShape kLlamaProjections[] = {{0, 4096, 4096}, {0, 6144, 4096}, {0, 14336, 4096}, {0, 4096, 14336}};

struct TierSweep {
  std::vector<std::int64_t> square;
  std::vector<std::int64_t> llama_m;  // tokens in flight: decode (1, 16), prefill chunks
};

bool on_gpu(std::string_view backend) { return backend != "cpu"; }

// A GPU runs 8192^3 in milliseconds (it is where its matrix peak shows); a CPU in seconds.
TierSweep sweep_of(Tier tier, std::string_view backend) {
  TierSweep s;
  switch (tier) {
    case Tier::smoke: s = {{256, 512}, {16}}; break;
    case Tier::quick: s = {{256, 512, 1024, 2048}, {1, 16, 128}}; break;
    case Tier::full: s = {{256, 512, 1024, 2048, 3072, 4096}, {1, 16, 128, 2048}}; break;
  }
  if (on_gpu(backend) && tier != Tier::smoke) s.square.push_back(8192);
  if (on_gpu(backend) && tier == Tier::quick) s.square.insert(s.square.end() - 1, 4096);
  return s;
}

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
  p.dtype = std::string(dtype_name(dtype));
  p.shape = fmt::format("m{}_n{}_k{}", s.m, s.n, s.k);
  p.params = {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"set", std::string(set)},
              {"layout", on_gpu(backend) ? "A [M,K] row-major, B stored [N,K] (weights as nn.Linear keeps them), C [M,N] row-major"
                                         : "A row-major, B prepacked by the library, C row-major"}};
  if (dtype == Dtype::fp8) p.params["fp8"] = "e4m3 inputs with per-tensor scales, bf16 output";
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

GemmShape shape_of(const Problem& p) {
  return {p.params.at("m").get<std::int64_t>(), p.params.at("n").get<std::int64_t>(), p.params.at("k").get<std::int64_t>()};
}

std::vector<Problem> gemm_sweep(Tier tier, std::string_view backend) {
  const auto sweep = sweep_of(tier, backend);
  std::vector<Problem> points;
  const std::vector<Dtype> cpu_dtypes = {Dtype::fp32, Dtype::bf16, Dtype::int8};
  const auto dtypes = on_gpu(backend) ? std::vector<Dtype>(all_dtypes().begin(), all_dtypes().end()) : cpu_dtypes;
  for (Dtype d : dtypes) {
    for (auto n : sweep.square) points.push_back(make_gemm_problem({n, n, n}, d, backend, "square"));
    for (auto m : sweep.llama_m)
      for (auto nk : kLlamaProjections) points.push_back(make_gemm_problem({m, nk.n, nk.k}, d, backend, "llama3_8b"));
  }
  return points;
}

}  // namespace rooftop::gemm
