// rocBLAS's gemm_ex arguments for rooftop's row-major products, checked with no AMD GPU: a
// small CPU interpreter runs them as column-major gemm_ex would (operands swapped, as
// RocblasMatmul passes them) and the result must be the row-major product. A wrong
// transpose, leading dimension or stride reads the wrong elements, or past a buffer.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "devices/hip/rocblas_gemm_args.hpp"
#include "harness/errors.hpp"

using namespace rooftop;
using gpu::MatmulShape;
using gpu::RocblasGemmArgs;

namespace {

// gemm_strided_batched_ex, column-major, C = D: D = alpha op(A) op(B) + beta D. `.at()`
// bounds every read and write by the buffers; rocBLAS's own size checks are REQUIREd.
void column_major_gemm_ex(const RocblasGemmArgs& g, const std::vector<double>& a, const std::vector<double>& b,
                          std::vector<double>& d, double alpha, double beta) {
  const bool ta = g.trans_a == rocblas_operation_transpose, tb = g.trans_b == rocblas_operation_transpose;
  REQUIRE((g.trans_a == rocblas_operation_none || ta));
  REQUIRE((g.trans_b == rocblas_operation_none || tb));
  REQUIRE(g.m > 0);
  REQUIRE(g.n > 0);
  REQUIRE(g.k > 0);
  REQUIRE(g.batch_count > 0);
  REQUIRE(g.lda >= (ta ? g.k : g.m));  // rocBLAS returns invalid_size otherwise
  REQUIRE(g.ldb >= (tb ? g.n : g.k));
  REQUIRE(g.ldd >= g.m);
  for (std::int64_t p = 0; p < g.batch_count; ++p)
    for (std::int64_t j = 0; j < g.n; ++j)
      for (std::int64_t i = 0; i < g.m; ++i) {
        double sum = 0;
        for (std::int64_t l = 0; l < g.k; ++l) {
          const double op_a = a.at(p * g.stride_a + (ta ? l + i * g.lda : i + l * g.lda));
          const double op_b = b.at(p * g.stride_b + (tb ? j + l * g.ldb : l + j * g.ldb));
          sum += op_a * op_b;
        }
        double& out = d.at(p * g.stride_d + i + j * g.ldd);
        out = alpha * sum + beta * out;
      }
}

// D[M,N] = alpha A[M,K] x B (B stored [N,K] or [K,N]) + beta D, row-major, each batch entry
// at its stride.
std::vector<double> row_major_reference(const MatmulShape& s, const std::vector<double>& a, const std::vector<double>& b,
                                        std::vector<double> d, double alpha, double beta) {
  for (std::int64_t p = 0; p < s.batch; ++p)
    for (std::int64_t r = 0; r < s.m; ++r)
      for (std::int64_t c = 0; c < s.n; ++c) {
        double sum = 0;
        for (std::int64_t l = 0; l < s.k; ++l)
          sum += a[p * s.stride_a + r * s.k + l] * (s.b_stored_nk ? b[p * s.stride_b + c * s.k + l] : b[p * s.stride_b + l * s.n + c]);
        double& out = d[p * s.stride_d + r * s.n + c];
        out = alpha * sum + beta * out;
      }
  return d;
}

// Small integers: every product and sum is exact in a double, so equality is the check.
std::vector<double> random_values(std::size_t count, std::mt19937& rng) {
  std::uniform_int_distribution<int> value(-4, 4);
  std::vector<double> v(count);
  for (auto& x : v) x = value(rng);
  return v;
}

std::string skip_reason(Dtype dtype, const MatmulShape& shape) {
  try {
    gpu::rocblas_gemm_args(dtype, shape);
  } catch (const PointSkipped& e) {
    return e.what();
  }
  return "not skipped";
}

}  // namespace

TEST_CASE("rocBLAS's gemm_ex arguments give the row-major product, both B layouts, batched", "[rocblas]") {
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> size(1, 9), pad(0, 5), batches(1, 4);
  for (int trial = 0; trial < 200; ++trial) {
    MatmulShape s;
    s.m = size(rng) | 1;  // odd sizes, so M, N and K differ and a swapped one shows
    s.n = size(rng) | 1;
    s.k = size(rng) | 1;
    s.b_stored_nk = trial % 2 == 0;
    s.batch = trial % 4 < 2 ? 1 : batches(rng) + 1;
    // Strides past each matrix's end, by different pads: a stride given to the wrong operand
    // reads other elements (or past the buffer).
    s.stride_a = s.batch > 1 ? s.m * s.k + pad(rng) : 0;
    s.stride_b = s.batch > 1 ? s.n * s.k + pad(rng) + 1 : 0;
    s.stride_d = s.batch > 1 ? s.m * s.n + pad(rng) + 2 : 0;
    const auto batched = [&](std::int64_t stride, std::int64_t elements) {
      return static_cast<std::size_t>((s.batch - 1) * stride + elements);
    };
    const auto a = random_values(batched(s.stride_a, s.m * s.k), rng);
    const auto b = random_values(batched(s.stride_b, s.n * s.k), rng);
    const auto d0 = random_values(batched(s.stride_d, s.m * s.n), rng);
    const double alpha = trial % 3 == 0 ? 0.5 : 1, beta = trial % 5 == 0 ? 1 : 0;
    INFO("M " << s.m << " N " << s.n << " K " << s.k << " b_stored_nk " << s.b_stored_nk << " batch " << s.batch);

    const RocblasGemmArgs g = gpu::rocblas_gemm_args(Dtype::bf16, s);
    CHECK(g.batch_count == s.batch);
    auto d = d0;
    column_major_gemm_ex(g, /*rocBLAS's A is our B*/ b, /*its B our A*/ a, d, alpha, beta);
    CHECK(d == row_major_reference(s, a, b, d0, alpha, beta));  // the padding between entries untouched too
  }
}

TEST_CASE("rocBLAS's gemm_ex arguments for a weight product M=3 N=5 K=7", "[rocblas]") {
  const RocblasGemmArgs g = gpu::rocblas_gemm_args(Dtype::fp16, MatmulShape{3, 5, 7});
  CHECK(g.trans_a == rocblas_operation_transpose);  // B[N,K]: K x N column-major, transposed
  CHECK(g.trans_b == rocblas_operation_none);
  CHECK((g.m == 5 && g.n == 3 && g.k == 7));
  CHECK((g.lda == 7 && g.ldb == 7 && g.ldd == 5));
  CHECK(g.batch_count == 1);
  MatmulShape values{3, 5, 7};
  values.b_stored_nk = false;
  const RocblasGemmArgs v = gpu::rocblas_gemm_args(Dtype::fp16, values);
  CHECK(v.trans_a == rocblas_operation_none);  // B[K,N]: N x K column-major as it is
  CHECK(v.lda == 5);
}

TEST_CASE("rocBLAS's types per dtype, as gemm_ex lists them", "[rocblas]") {
  const MatmulShape s{8, 8, 8};
  const auto types = [](const RocblasGemmArgs& g) {
    return std::vector<int>{static_cast<int>(g.ab_type), static_cast<int>(g.d_type), static_cast<int>(g.compute_type)};
  };
  CHECK(types(gpu::rocblas_gemm_args(Dtype::fp32, s)) == std::vector<int>{151, 151, 151});
  CHECK(types(gpu::rocblas_gemm_args(Dtype::bf16, s)) == std::vector<int>{168, 168, 151});
  CHECK(types(gpu::rocblas_gemm_args(Dtype::fp16, s)) == std::vector<int>{150, 150, 151});
  CHECK(types(gpu::rocblas_gemm_args(Dtype::int8, s)) == std::vector<int>{160, 162, 162});
  MatmulShape scores = s;
  scores.d_fp32 = true;
  CHECK(types(gpu::rocblas_gemm_args(Dtype::bf16, scores)) == std::vector<int>{168, 151, 151});
  CHECK(types(gpu::rocblas_gemm_args(Dtype::fp16, scores)) == std::vector<int>{150, 151, 151});
  // The ABI's values (rocblas-types.h), spelled out once more here.
  CHECK(rocblas_operation_none == 111);
  CHECK(rocblas_operation_transpose == 112);
  CHECK(rocblas_gemm_algo_standard == 0);
}

TEST_CASE("products gemm_ex cannot take are skipped with the reason", "[rocblas]") {
  const MatmulShape s{16, 16, 16};
  CHECK_THAT(skip_reason(Dtype::tf32, s), Catch::Contains("takes no tf32") && Catch::Contains("math mode"));
  CHECK_THAT(skip_reason(Dtype::fp8, s), Catch::Contains("takes no fp8") && Catch::Contains("gemm_ex3"));
  MatmulShape fp32_out = s;
  fp32_out.d_fp32 = true;
  CHECK_THAT(skip_reason(Dtype::int8, fp32_out), Catch::Contains("of bf16 or fp16 inputs only"));
  CHECK_THAT(skip_reason(Dtype::bf16, MatmulShape{16, std::int64_t{1} << 31, 16}),
             Catch::Contains("32-bit rocblas_int") && Catch::Contains("N is 2147483648"));
  CHECK_THAT(skip_reason(Dtype::fp16, MatmulShape{16, 16, std::int64_t{3} << 31}), Catch::Contains("K is 6442450944"));
  MatmulShape many = s;
  many.batch = std::int64_t{1} << 32;
  CHECK_THAT(skip_reason(Dtype::fp16, many), Catch::Contains("the batch is 4294967296"));
  CHECK(skip_reason(Dtype::fp32, MatmulShape{2147483647, 1, 1}) == "not skipped");  // the largest rocblas_int
}
