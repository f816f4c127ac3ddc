#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "devices/cpu/onednn_matmul.hpp"
#include "harness/bf16.hpp"
#include "harness/errors.hpp"
#include "harness/random_fill.hpp"
#include "harness/registry.hpp"
#include "suites/gemm/gemm_cpu.hpp"
#include "suites/gemm/gemm_problem.hpp"
#include "suites/gemm/gemm_reference.hpp"

using namespace rooftop;
using namespace rooftop::gemm;

TEST_CASE("GEMM FLOP and byte counts", "[gemm]") {
  const GemmShape square{2048, 2048, 2048};
  auto w = gemm_work(square, Dtype::fp32);
  CHECK(w.flops == 2.0 * 2048 * 2048 * 2048);
  CHECK(w.bytes == 3.0 * 2048 * 2048 * 4);
  w = gemm_work(square, Dtype::bf16);
  CHECK(w.bytes == 3.0 * 2048 * 2048 * 2);
  // int8: s8 inputs, s32 output.
  const GemmShape llama{16, 14336, 4096};
  w = gemm_work(llama, Dtype::int8);
  CHECK(w.flops == 2.0 * 16 * 14336 * 4096);
  CHECK(w.bytes == 16.0 * 4096 + 4096.0 * 14336 + 16.0 * 14336 * 4);
  CHECK(w.arithmetic_intensity() == Approx(w.flops / w.bytes));
  // fp8: e4m3 inputs, bf16 output; tf32: fp32 storage.
  w = gemm_work(llama, Dtype::fp8);
  CHECK(w.bytes == 16.0 * 4096 + 4096.0 * 14336 + 16.0 * 14336 * 2);
  CHECK(gemm_work(square, Dtype::tf32).bytes == gemm_work(square, Dtype::fp32).bytes);
  CHECK(gemm_work(square, Dtype::fp16).bytes == gemm_work(square, Dtype::bf16).bytes);
}

TEST_CASE("GPU sweeps add 8192^3 and the GPU dtypes, the CPU keeps its three", "[gemm]") {
  const auto gpu = find_family("gemm").sweep({Tier::quick, "cuda"});
  const auto cpu = find_family("gemm").sweep({Tier::quick, "cpu"});
  auto count = [](const std::vector<Problem>& ps, const std::string& part) {
    return std::count_if(ps.begin(), ps.end(), [&](const Problem& p) { return p.name().find(part) != std::string::npos; });
  };
  CHECK(count(gpu, "gemm/cuda/fp8/m8192_n8192_k8192") == 1);
  CHECK(count(gpu, "/tf32/") == count(gpu, "/bf16/"));
  CHECK(count(cpu, "m8192") == 0);
  CHECK(count(cpu, "/fp8/") == 0);
  CHECK(gpu.size() == 6 * 18);  // 6 dtypes x (6 squares + 3 x 4 Llama projections)
  for (const auto& p : gpu) CHECK(p.memory_bytes > p.work.bytes);  // + the library's workspace
}

TEST_CASE("error bounds per dtype: what each one allows and why", "[gemm]") {
  // tf32 allows for its input rounding, which fp32 does not.
  CHECK(gemm_tolerance(Dtype::tf32, 4096).input > 0);
  CHECK(gemm_tolerance(Dtype::fp32, 4096).input == 0);
  // fp8's accumulation term is wider than the fp32 one (Hopper's fp8 accumulation).
  CHECK(gemm_tolerance(Dtype::fp8, 4096).gamma > 10 * gemm_tolerance(Dtype::bf16, 4096).gamma);
  // Outputs: fp16 rounds finer than bf16; int8 is exact.
  CHECK(gemm_tolerance(Dtype::fp16, 64).u_out < gemm_tolerance(Dtype::bf16, 64).u_out);
  CHECK(gemm_tolerance(Dtype::int8, 64).absolute == 0.5);

  // judge_elements: within the bound passes; a doubled term fails; unwritten fails.
  const std::int64_t k = 256;
  ElementReference ok{3, 4, 10.0 + 1e-7, 10.0, 64.0, 16.0};
  ElementReference doubled{5, 6, 10.0 + 0.25, 10.0, 64.0, 16.0};  // one extra |a*b| of 64/256
  CHECK(judge_elements(Dtype::fp32, k, std::vector{ok}, 100, 0).passed);
  const auto bad = judge_elements(Dtype::fp32, k, std::vector{ok, doubled}, 100, 0);
  CHECK_FALSE(bad.passed);
  CHECK(bad.worst_element.find("C[5,6]") != std::string::npos);
  const auto unwritten = judge_elements(Dtype::fp32, k, std::vector{ok}, 100, 7);
  CHECK_FALSE(unwritten.passed);
  CHECK(unwritten.worst_element.find("7 of 100 elements never written") != std::string::npos);
}

TEST_CASE("the sweeps hold the shapes the tiers promise", "[gemm]") {
  auto has = [](const std::vector<Problem>& ps, const std::string& name) {
    for (const auto& p : ps)
      if (p.name() == name) return true;
    return false;
  };
  const auto full = find_family("gemm").sweep({Tier::full, "cpu"});
  CHECK(has(full, "gemm/cpu/bf16/m4096_n4096_k4096"));
  CHECK(has(full, "gemm/cpu/int8/m2048_n4096_k14336"));
  CHECK(has(full, "gemm/cpu/fp32/m1_n6144_k4096"));
  const auto smoke = find_family("gemm").sweep({Tier::smoke, "cpu"});
  CHECK(smoke.size() < full.size());
  for (const auto& p : full) CHECK(p.work.flops > 0);
}

TEST_CASE("GEMM shapes: accepted and refused with the reason", "[gemm]") {
  const auto s = parse_gemm_shape("16x4096x14336");
  CHECK(s.m == 16);
  CHECK(s.n == 4096);
  CHECK(s.k == 14336);
  CHECK_THROWS_WITH(parse_gemm_shape("0x4x4"), Catch::Contains("must be positive"));
  CHECK_THROWS_WITH(parse_gemm_shape("-3x4x4"), Catch::Contains("must be positive"));
  CHECK_THROWS_WITH(parse_gemm_shape("4x4"), Catch::Contains("MxNxK"));
  CHECK_THROWS_WITH(parse_gemm_shape("4x4x4x4"), Catch::Contains("not a whole number"));
  CHECK_THROWS_WITH(parse_gemm_shape("99999999999x4x4"), Catch::Contains("too large"));
  CHECK_THROWS_AS(parse_gemm_shape("axbxc"), InputError);
}

TEST_CASE("oneDNN GEMM passes its reference check on fresh random data", "[gemm][onednn]") {
  const auto seed = GENERATE(take(2, random(1u, 1000000u)));
  for (const char* dtype : {"fp32", "bf16", "int8"}) {
    for (const auto& shape : {GemmShape{33, 65, 129}, GemmShape{600, 300, 900}}) {  // full and sampled checks
      const auto p = make_gemm_problem(shape, parse_dtype(dtype), "cpu", "test");
      std::unique_ptr<Instance> inst;
      try {
        inst = create_gemm_cpu(p, seed);
      } catch (const PointSkipped&) {
        continue;  // no implementation on this CPU
      }
      const auto c = inst->check();
      INFO(p.name() << " " << c.worst_element);
      CHECK(c.passed);
      CHECK(c.elements_checked > 0);
      CHECK(c.max_error_ratio <= 1.0);
    }
  }
}

TEST_CASE("a GEMM point carries its typed shape: the suite reads none of its params back", "[gemm][typed]") {
  auto p = make_gemm_problem({33, 65, 129}, Dtype::fp32, "cpu", "test");
  p.params = nlohmann::ordered_json::object();  // the results' view alone: nothing reads it back
  CHECK(shape_of(p).m == 33);
  CHECK(shape_of(p).n == 65);
  CHECK(shape_of(p).k == 129);
  std::unique_ptr<Instance> inst;
  try {
    inst = create_gemm_cpu(p, 7);
  } catch (const PointSkipped&) {
    return;  // no oneDNN fp32 matmul on this CPU
  }
  CHECK(inst->check().passed);
  auto read_back = p;  // a point read from a results file has its params and no typed shape
  read_back.typed_shape = nullptr;
  CHECK_THROWS_WITH(shape_of(read_back), Catch::Contains("gemm/cpu/fp32/m33_n65_k129") && Catch::Contains("no typed shape"));
}

TEST_CASE("the reference check catches a wrong or unwritten output", "[gemm]") {
  const GemmShape shape{24, 40, 56};
  std::vector<float> a(24 * 56), b(56 * 40), c(24 * 40, 0.0f);
  fill_uniform(a, 11, -1, 1);
  fill_uniform(b, 12, -1, 1);
  for (int i = 0; i < 24; ++i)
    for (int j = 0; j < 40; ++j) {
      double s = 0;
      for (int k = 0; k < 56; ++k) s += static_cast<double>(a[i * 56 + k]) * b[k * 40 + j];
      c[i * 40 + j] = static_cast<float>(s);
    }
  GemmOperands ops{Dtype::fp32, shape, a.data(), b.data(), c.data()};
  CHECK(check_gemm(ops, 1).passed);

  // One term of one dot product left out.
  c[5 * 40 + 7] -= a[5 * 56 + 3] * b[3 * 40 + 7];
  auto r = check_gemm(ops, 1);
  CHECK_FALSE(r.passed);
  CHECK_THAT(r.worst_element, Catch::Contains("C[5,7]"));
  c[5 * 40 + 7] += a[5 * 56 + 3] * b[3 * 40 + 7];

  // An element the kernel never wrote keeps its poison.
  poison_output(Dtype::fp32, &c[23 * 40 + 39], 1);
  r = check_gemm(ops, 1);
  CHECK_FALSE(r.passed);
  CHECK(std::isinf(r.max_error_ratio));
}

TEST_CASE("int8 results must be exact, bf16 outputs get bf16 rounding", "[gemm]") {
  const GemmShape shape{4, 4, 8};
  std::vector<std::int8_t> a(32, 3), b(32, -2);
  std::vector<std::int32_t> c(16, 3 * -2 * 8);
  GemmOperands ops{Dtype::int8, shape, a.data(), b.data(), c.data()};
  CHECK(check_gemm(ops, 1).passed);
  c[0] += 1;
  CHECK_FALSE(check_gemm(ops, 1).passed);

  std::vector<std::uint16_t> a16(32, float_to_bf16(1.5f)), b16(32, float_to_bf16(1.0f / 3)), c16(16);
  const float exact = 8 * 1.5f * bf16_to_float(float_to_bf16(1.0f / 3));
  for (auto& x : c16) x = float_to_bf16(exact);
  GemmOperands ops16{Dtype::bf16, shape, a16.data(), b16.data(), c16.data()};
  CHECK(check_gemm(ops16, 1).passed);
  c16[3] = float_to_bf16(exact * 1.02f);  // 2% off: beyond bf16 rounding
  CHECK_FALSE(check_gemm(ops16, 1).passed);
}
