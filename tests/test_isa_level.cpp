#include <catch2/catch.hpp>

#include <stdexcept>

#include "devices/cpu/cpu_gemv.hpp"
#include "devices/cpu/isa_level.hpp"

using namespace rooftop::cpu;

TEST_CASE("the ISA cap takes our names and oneDNN's, ours first, and refuses others by name", "[isa]") {
  CHECK(isa_cap_from("", "") == IsaLevel::amx);
  CHECK(isa_cap_from("avx2", "") == IsaLevel::avx2);
  CHECK(isa_cap_from("", "AVX2") == IsaLevel::avx2);
  CHECK(isa_cap_from("", "AVX512_CORE") == IsaLevel::avx512);
  CHECK(isa_cap_from("", "avx512_core_bf16") == IsaLevel::avx512_bf16);
  CHECK(isa_cap_from("x86-64", "AVX512_CORE_AMX") == IsaLevel::x86_64);  // ours wins
  CHECK(isa_cap_from("ALL", "AVX2") == IsaLevel::amx);
  CHECK_THROWS_WITH(isa_cap_from("avx3", ""), Catch::Contains("ROOFTOP_MAX_CPU_ISA=avx3") && Catch::Contains("avx2"));
  CHECK_THROWS_WITH(isa_cap_from("", "AVX9"), Catch::Contains("ONEDNN_MAX_CPU_ISA=AVX9"));
}

TEST_CASE("the usable ISA never exceeds the CPU's, and the GEMV's copy follows it", "[isa]") {
  CHECK(usable_isa_level() <= detected_isa_level());
  const auto expected = isa_usable(IsaLevel::avx512) ? "AVX-512" : isa_usable(IsaLevel::avx2) ? "AVX2" : "x86-64 without AVX2";
  CHECK(gemv_isa_name() == expected);
}
