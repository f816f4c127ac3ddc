#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "devices/cpu/cpu_gemv.hpp"
#include "devices/cpu/isa_level.hpp"
#include "harness/bf16.hpp"
#include "harness/dtype.hpp"

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

TEST_CASE("the GEMV (the copy this ISA runs) matches a double reference: odd sizes, bf16 and fp32 weights", "[isa]") {
  CHECK(usable_isa_level() <= detected_isa_level());
  INFO("GEMV copy: " << gemv_isa_name());
  std::mt19937 rng(static_cast<unsigned>(std::random_device{}()));
  // Small integers: exact in bf16, every product and partial sum exact in fp32, so the
  // result must equal the reference exactly: an element skipped or read twice shows.
  std::uniform_int_distribution<int> integer(-4, 4);
  const auto value = [&](std::mt19937& g) { return static_cast<float>(integer(g)); };
  // k off the 32-lane step and below it, one row and several, n odd.
  for (const auto [m, n, k] : {std::array<std::int64_t, 3>{1, 37, 1000}, {3, 5, 31}, {8, 129, 4099}, {2, 1, 1}}) {
    INFO(m << "x" << n << "x" << k);
    for (const bool bf16 : {false, true}) {
      std::vector<float> xf(static_cast<std::size_t>(m * k)), wf(static_cast<std::size_t>(n * k));
      std::vector<std::uint16_t> xb(xf.size()), wb(wf.size());
      for (std::size_t i = 0; i < xf.size(); ++i) xf[i] = rooftop::bf16_to_float(xb[i] = rooftop::float_to_bf16(value(rng)));
      for (std::size_t i = 0; i < wf.size(); ++i) wf[i] = rooftop::bf16_to_float(wb[i] = rooftop::float_to_bf16(value(rng)));
      std::vector<float> y(static_cast<std::size_t>(m * n), std::numeric_limits<float>::quiet_NaN());  // poisoned
      gemv_rows(bf16 ? rooftop::Dtype::bf16 : rooftop::Dtype::fp32, m, n, k, bf16 ? static_cast<const void*>(xb.data()) : xf.data(),
                bf16 ? static_cast<const void*>(wb.data()) : wf.data(), y.data());
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t j = 0; j < n; ++j) {
          double exact = 0;
          for (std::int64_t i = 0; i < k; ++i)
            exact += static_cast<double>(xf[static_cast<std::size_t>(r * k + i)]) * wf[static_cast<std::size_t>(j * k + i)];
          const float got = y[static_cast<std::size_t>(r * n + j)];
          INFO((bf16 ? "bf16" : "fp32") << " row " << r << " column " << j << ": " << got << " vs " << exact);
          REQUIRE(static_cast<double>(got) == exact);
        }
    }
  }
}
