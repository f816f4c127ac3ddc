#include "suites/gemm/gemm_reference.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "harness/bf16.hpp"
#include "harness/dtype_facts.hpp"
#include "harness/errors.hpp"
#include "harness/random_fill.hpp"

namespace rooftop::gemm {
namespace {

double load(Dtype d, const void* p, std::int64_t i) {
  if (d != Dtype::fp32 && d != Dtype::bf16 && d != Dtype::int8)
    throw PointSkipped("the CPU GEMM reference reads fp32, bf16 and int8 only");
  return load_element(d, p, static_cast<std::size_t>(i));
}

double load_output(Dtype d, const void* p, std::int64_t i) {
  return d == Dtype::int8 ? static_cast<double>(static_cast<const std::int32_t*>(p)[i]) : load(d, p, i);
}

struct Worst {
  double ratio = -1, abs_error = 0;
  std::int64_t i = 0, j = 0;
  double got = 0, want = 0;
};

void compare(const GemmTolerance& tol, std::int64_t i, std::int64_t j, double got, double ref, double abs_sum, Worst& w,
             double& max_abs, double sq_sum = 0) {
  const double err = std::fabs(got - ref);
  const double allowed = tol.u_out * std::fabs(ref) + tol.gamma * abs_sum + tol.input * std::sqrt(sq_sum) + tol.absolute;
  const double ratio = std::isnan(err) ? std::numeric_limits<double>::infinity() : (allowed > 0 ? err / allowed : (err > 0 ? std::numeric_limits<double>::infinity() : 0));
  if (!std::isnan(err) && err > max_abs) max_abs = err;
  if (ratio > w.ratio) w = {ratio, err, i, j, got, ref};
}
}  // namespace

void poison_output(Dtype d, void* c, std::int64_t elements) {
  switch (d) {
    case Dtype::fp32: {
      auto* p = static_cast<float*>(c);
      for (std::int64_t i = 0; i < elements; ++i) p[i] = std::numeric_limits<float>::quiet_NaN();
      break;
    }
    case Dtype::bf16: {
      auto* p = static_cast<std::uint16_t*>(c);
      for (std::int64_t i = 0; i < elements; ++i) p[i] = 0x7fc0;  // bf16 quiet NaN
      break;
    }
    case Dtype::int8: {
      auto* p = static_cast<std::int32_t*>(c);
      for (std::int64_t i = 0; i < elements; ++i) p[i] = std::numeric_limits<std::int32_t>::min();
      break;
    }
    default: throw PointSkipped("CPU outputs are fp32, bf16 or int32");
  }
}

GemmTolerance gemm_tolerance(Dtype d, std::int64_t k) {
  const double u_acc = unit_roundoff(Dtype::fp32), gamma = 8.0 * std::sqrt(static_cast<double>(k)) * u_acc;
  const std::string acc = "8*sqrt(K)*2^-24*sum|a*b|";
  switch (d) {
    case Dtype::fp32: return {unit_roundoff(d), gamma, 0, 0, "2^-24*|ref| + " + acc};
    // tf32 keeps 10 mantissa bits of each fp32 input: a bias up to 2^-10 |ref| when they are
    // truncated, and a random error per product of up to 2 x 2^-10.
    case Dtype::tf32: return {0x1p-10, gamma, 8 * 0x1p-10, 0, "2^-10*|ref| + " + acc + " + 8*2^-10*sqrt(sum (a*b)^2)"};
    case Dtype::bf16: return {unit_roundoff(d), gamma, 0, 0, "2^-8*|ref| + " + acc};
    case Dtype::fp16: return {unit_roundoff(d), gamma, 0, 0, "2^-11*|ref| + " + acc};
    // Hopper's fp8 tensor cores accumulate with fewer bits than fp32 (DeepSeek-V3 report,
    // section 3.3.2: about 14). Measured on an H100 through cuBLASLt: worst error about
    // 2^-19.4 sqrt(K) sum|a*b| over 65,536 elements; 8 sqrt(K) 2^-18 leaves a factor 20.
    case Dtype::fp8:
      return {0x1p-8, 8.0 * std::sqrt(static_cast<double>(k)) * 0x1p-18, 0, 0,
              "2^-8*|ref| (bf16 output) + 8*sqrt(K)*2^-18*sum|a*b| (fp8 tensor-core accumulation)"};
    case Dtype::int8: return {0, 0, 0, 0.5, "exact (integer)"};
  }
  return {};
}

Correctness judge_elements(Dtype dtype, std::int64_t k, std::span<const ElementReference> elements,
                           std::uint64_t total, std::uint64_t unwritten) {
  const GemmTolerance tol = gemm_tolerance(dtype, k);
  Correctness result;
  result.tolerance = tol.formula;
  result.elements_total = total;
  result.elements_checked = elements.size();
  Worst worst;
  double max_abs = 0;
  for (const auto& e : elements) compare(tol, e.i, e.j, e.got, e.ref, e.abs_sum, worst, max_abs, e.sq_sum);
  result.max_abs_error = std::isfinite(worst.abs_error) ? max_abs : std::numeric_limits<double>::infinity();
  result.max_error_ratio = worst.ratio;
  result.passed = worst.ratio <= 1.0 && unwritten == 0;
  result.worst_element = fmt::format("C[{},{}] = {:.9g}, reference {:.9g}", worst.i, worst.j, worst.got, worst.want);
  if (unwritten > 0) {
    result.max_error_ratio = std::numeric_limits<double>::infinity();
    result.worst_element = fmt::format("{} of {} elements never written (still poisoned)", unwritten, total);
  }
  return result;
}

Correctness check_gemm(const GemmOperands& o, std::uint64_t seed) {
  const auto [m, n, k] = o.shape;
  const GemmTolerance tol = gemm_tolerance(o.dtype, k);
  const bool full = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <= kFullCheckLimit;
  Correctness result;
  result.tolerance = tol.formula;
  result.elements_total = static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n);
  Worst worst;
  double max_abs = 0;
  if (full) {
    // Row by row: ref[j] += a[i,k] * b[k,j] walks B along its rows.
#pragma omp parallel
    {
      Worst w;
      double local_max = 0;
      std::vector<double> ref(n), abs_sum(n);
#pragma omp for schedule(dynamic)
      for (std::int64_t i = 0; i < m; ++i) {
        std::fill(ref.begin(), ref.end(), 0.0);
        std::fill(abs_sum.begin(), abs_sum.end(), 0.0);
        for (std::int64_t kk = 0; kk < k; ++kk) {
          const double a = load(o.dtype, o.a, i * k + kk);
          for (std::int64_t j = 0; j < n; ++j) {
            const double b = load(o.dtype, o.b, kk * n + j);
            ref[j] += a * b;
            abs_sum[j] += std::fabs(a * b);
          }
        }
        for (std::int64_t j = 0; j < n; ++j)
          compare(tol, i, j, load_output(o.dtype, o.c, i * n + j), ref[j], abs_sum[j], w, local_max);
      }
#pragma omp critical
      {
        if (w.ratio > worst.ratio) worst = w;
        max_abs = std::max(max_abs, local_max);
      }
    }
    result.elements_checked = result.elements_total;
  } else {
    // A seeded sample of elements, always including the first and the last.
    std::vector<std::pair<std::int64_t, std::int64_t>> picks = {{0, 0}, {m - 1, n - 1}};
    for (int s = 0; s < kSampledElements; ++s)
      picks.push_back({static_cast<std::int64_t>(splitmix64(seed + 2 * s) % static_cast<std::uint64_t>(m)),
                       static_cast<std::int64_t>(splitmix64(seed + 2 * s + 1) % static_cast<std::uint64_t>(n))});
    for (const auto& [i, j] : picks) {
      double ref = 0, abs_sum = 0;
      for (std::int64_t kk = 0; kk < k; ++kk) {
        const double p = load(o.dtype, o.a, i * k + kk) * load(o.dtype, o.b, kk * n + j);
        ref += p;
        abs_sum += std::fabs(p);
      }
      compare(tol, i, j, load_output(o.dtype, o.c, i * n + j), ref, abs_sum, worst, max_abs);
    }
    result.elements_checked = picks.size();
  }
  result.max_abs_error = std::isfinite(worst.abs_error) ? max_abs : std::numeric_limits<double>::infinity();
  result.max_error_ratio = worst.ratio;
  result.passed = worst.ratio <= 1.0;
  result.worst_element = fmt::format("C[{},{}] = {:.9g}, reference {:.9g}", worst.i, worst.j, worst.got, worst.want);
  return result;
}

}  // namespace rooftop::gemm
