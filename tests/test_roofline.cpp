#include <catch2/catch.hpp>

#include "harness/roofline.hpp"

using namespace rooftop;

namespace {
Ceilings machine() {
  Ceilings c;
  c.compute = {{"fp32_vector_fma", "fp32", "avx512_fma", 1000e9}, {"bf16_matrix", "bf16", "amx", 4000e9},
               {"bf16_slow", "bf16", "avx512", 500e9}};
  c.bandwidth = {{"L1", 2000e9, 64e3}, {"L2", 1000e9, 2e6}, {"DRAM", 100e9, 0}};
  c.dispatch_latency_s = 2e-6;
  return c;
}
}  // namespace

TEST_CASE("attainable is the lower of the two roofs, the ridge is where they meet", "[roofline]") {
  CHECK(attainable_flops(1000, 100, 1) == 100);     // memory roof
  CHECK(attainable_flops(1000, 100, 10) == 1000);   // exactly at the ridge
  CHECK(attainable_flops(1000, 100, 1e6) == 1000);  // compute roof
  CHECK(ridge_intensity(1000, 100) == 10);
  CHECK(std::isinf(ridge_intensity(1000, 0)));
}

TEST_CASE("the compute ceiling of a dtype is its highest one", "[roofline]") {
  const auto c = machine();
  REQUIRE(compute_ceiling_for(c, Dtype::bf16));
  CHECK(compute_ceiling_for(c, Dtype::bf16)->name == "bf16_matrix");
  CHECK(compute_ceiling_for(c, Dtype::int8) == nullptr);
}

TEST_CASE("the memory level is the closest one that can hold half the working set", "[roofline]") {
  const auto c = machine();
  CHECK(bandwidth_ceiling_for(c, 1e3)->level == "L1");
  CHECK(bandwidth_ceiling_for(c, 64e3)->level == "L1");
  CHECK(bandwidth_ceiling_for(c, 128e3)->level == "L1");  // twice the capacity: still bounded by it
  CHECK(bandwidth_ceiling_for(c, 128e3 + 1)->level == "L2");
  CHECK(bandwidth_ceiling_for(c, 1e12)->level == "DRAM");
  CHECK(bandwidth_ceiling_for(Ceilings{}, 1) == nullptr);
}

TEST_CASE("placement: memory, compute and latency bound", "[roofline]") {
  const auto c = machine();
  // 1 GB through DRAM at AI 1 (below the ridge of 10): memory-bound; at half the roof.
  Work w{1e9, 1e9};
  auto p = place_on_roofline(c, Dtype::fp32, w, 1e9 / 50e9);
  REQUIRE(p);
  CHECK(p->memory_level == "DRAM");
  CHECK(p->bound == Bound::memory);
  CHECK(p->attainable_flops == Approx(100e9));
  CHECK(p->fraction_of_attainable == Approx(0.5));
  CHECK_FALSE(p->above_ceiling);

  // AI exactly at the ridge counts as compute-bound.
  w = {10e9, 1e9};
  p = place_on_roofline(c, Dtype::fp32, w, 20e-3);
  CHECK(p->bound == Bound::compute);
  CHECK(p->ridge_intensity == Approx(10));

  // Ideal time 1 us < 5 x 2 us dispatch latency: latency-bound whatever the AI.
  w = {1e6, 1e3};
  p = place_on_roofline(c, Dtype::fp32, w, 5e-6);
  CHECK(p->bound == Bound::latency);

  // Faster than the roof allows by more than 5%: flagged.
  w = {1e12, 1e9};
  p = place_on_roofline(c, Dtype::fp32, w, 0.9);
  CHECK(p->above_ceiling);
  p = place_on_roofline(c, Dtype::fp32, w, 1.0 / 1.04);
  CHECK_FALSE(p->above_ceiling);
}

TEST_CASE("placement needs a roof for the dtype and a real measurement", "[roofline]") {
  const auto c = machine();
  CHECK_FALSE(place_on_roofline(c, Dtype::int8, {1e9, 1e6}, 1.0));
  CHECK_FALSE(place_on_roofline(c, Dtype::fp32, {1e9, 1e6}, 0.0));
  CHECK_FALSE(place_on_roofline(c, Dtype::fp32, {0, 1e6}, 1.0));
}

TEST_CASE("a roof bounds every unit that can run the dtype: fp32 units run bf16, fp16, tf32", "[roofline]") {
  Ceilings c{{{"fp32_vector_fma", "fp32", "avx512_fma", 250e9}, {"bf16_matrix", "bf16", "gemm:jit", 50e9},
              {"int8_matrix", "int8", "vnni", 800e9}},
             {{"DRAM", 20e9, 0}}, 0, {}};
  // A bf16 kernel that widens to fp32 can run at the fp32 rate: that is its roof here.
  REQUIRE(compute_ceiling_for(c, Dtype::bf16));
  CHECK(compute_ceiling_for(c, Dtype::bf16)->name == "fp32_vector_fma");
  CHECK(compute_ceiling_for(c, Dtype::fp16)->name == "fp32_vector_fma");
  CHECK(compute_ceiling_for(c, Dtype::tf32)->name == "fp32_vector_fma");
  // Matrix units stay the roof where they are faster; fp32 units never bound int8.
  c.compute[1].flops_per_s = 900e9;
  CHECK(compute_ceiling_for(c, Dtype::bf16)->name == "bf16_matrix");
  CHECK(compute_ceiling_for(c, Dtype::int8)->name == "int8_matrix");
  CHECK(compute_ceiling_for(c, Dtype::fp32)->name == "fp32_vector_fma");
  // A ceiling measured for a type rooftop has no problems in bounds none of its points.
  const Ceilings fp64_only{{{"fp64_vector_fma", "fp64", "fma", 1e12}}, {}, 0, {}};
  CHECK(compute_ceiling_for(fp64_only, Dtype::fp32) == nullptr);
  CHECK_FALSE(can_execute(Dtype::bf16, Dtype::fp32));
}
