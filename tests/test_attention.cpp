#include <catch2/catch.hpp>
#include <dnnl.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "harness/errors.hpp"
#include "harness/fp16.hpp"
#include "suites/attention/attention_cpu.hpp"
#include "suites/attention/attention_cpu_decode.hpp"
#include "suites/attention/attention_cpu_tiled.hpp"
#include "suites/attention/attention_cpu_exp.hpp"
#include "suites/attention/attention_cpu_fused.hpp"
#include "suites/attention/attention_data.hpp"
#include "suites/attention/attention_problem.hpp"
#if defined(ROOFTOP_HAVE_CUDA)
#include "suites/attention/attention_cuda_decode.cuh"
#endif

using namespace rooftop;
using namespace rooftop::attention;

namespace {
double brute_force_pairs(std::int64_t sq, std::int64_t skv) {
  double n = 0;
  for (std::int64_t i = 0; i < sq; ++i)
    for (std::int64_t j = 0; j < skv; ++j) n += j <= i + (skv - sq);
  return n;
}
std::uint64_t fresh_seed() { return Catch::rngSeed() * 104729 + 3; }
}  // namespace

TEST_CASE("causal masks leave exactly the pairs a brute-force count finds", "[attention]") {
  for (std::int64_t sq : {1, 2, 7, 64, 100, 513})
    for (std::int64_t skv : {1, 3, 64, 100, 513, 1000}) {
      INFO(sq << " queries, " << skv << " keys");
      CHECK(unmasked_pairs(sq, skv, true) == brute_force_pairs(sq, skv));
      CHECK(unmasked_pairs(sq, skv, false) == static_cast<double>(sq * skv));
    }
  // Square causal: S(S+1)/2, not a blanket half.
  CHECK(unmasked_pairs(4096, 4096, true) == 4096.0 * 4097 / 2);
}

TEST_CASE("attention work: 4 B Hq pairs D FLOPs, Q, K, V read and O written once", "[attention]") {
  AttentionShape s{false, 2, 32, 8, 1024, 1024, 128, false, 0, "fused", ""};
  auto w = attention_work(s, Dtype::bf16);
  CHECK(w.flops == 4.0 * 2 * 32 * 1024 * 1024 * 128);
  CHECK(w.bytes == (2.0 * 2 * 32 * 1024 * 128 + 2.0 * 2 * 8 * 1024 * 128) * 2);
  s.causal = true;
  CHECK(attention_work(s, Dtype::bf16).flops == 4.0 * 2 * 32 * (1024.0 * 1025 / 2) * 128);
  // Decode: the whole cache once.
  AttentionShape d{true, 32, 32, 8, 1, 4096, 128, false, 16, "fused", ""};
  w = attention_work(d, Dtype::fp16);
  CHECK(w.bytes == (2.0 * 32 * 32 * 128 + 2.0 * 32 * 8 * 4096 * 128) * 2);
}

TEST_CASE("attention shapes: accepted, and refused with the reason", "[attention]") {
  auto s = parse_attention_shape("prefill:1x32x8x4096x128:causal:onednn");
  CHECK(s.causal);
  CHECK(s.impl == "onednn");
  CHECK(s.group() == 4);
  s = parse_attention_shape("decode:64x32x8x32768x128:paged32");
  CHECK(s.decode);
  CHECK(s.sq == 1);
  CHECK(s.block == 32);
  CHECK_THROWS_WITH(parse_attention_shape("prefill:1x32x6x1024x128"), Catch::Contains("do not divide"));
  CHECK_THROWS_WITH(parse_attention_shape("prefill:1x32x8x1024x96"), Catch::Contains("head dim 96"));
  CHECK_THROWS_WITH(parse_attention_shape("prefill:1x32x8x0x128"), Catch::Contains("zero-length"));
  CHECK_THROWS_WITH(parse_attention_shape("decode:1x32x8x1000x128:paged16"), Catch::Contains("whole number of 16-token blocks"));
  CHECK_THROWS_WITH(parse_attention_shape("decode:1x32x8x1024x128:causal"), Catch::Contains("causal does not apply"));
  CHECK_THROWS_WITH(parse_attention_shape("prefill:1,32,8,1024,128"), Catch::Contains("write prefill:BxHqxHkvxSxD"));
  CHECK_THROWS_WITH(parse_attention_shape("prefill:1x32x8x1024x128:paged16"), Catch::Contains("decode layout"));
  // A GPU prefill tile: named in the point's shape, refused where it means nothing.
  s = parse_attention_shape("prefill:2x16x16x8192x128:m128n64w4s2");
  CHECK(s.tile == "m128n64w4s2");
  CHECK(make_attention_problem(s, Dtype::bf16, "cuda").shape == "prefill_b2_hq16_hkv16_s8192_d128_full_fused_m128n64w4s2");
  CHECK_THROWS_WITH(parse_attention_shape("decode:1x32x8x1024x128:m128n64w4s2"), Catch::Contains("split count"));
  // A CUDA decode tile: its split count, within the split's key limits.
  s = parse_attention_shape("decode:1x32x8x32768x128:paged16:s64");
  CHECK(s.tile == "s64");
  CHECK(make_attention_problem(s, Dtype::bf16, "cuda").shape == "decode_b1_hq32_hkv8_kv32768_d128_paged16_s64");
  CHECK_THROWS_WITH(make_attention_problem(s, Dtype::bf16, "cpu"), Catch::Contains("CUDA decode"));
  CHECK_THROWS_WITH(parse_attention_shape("decode:1x32x8x32768x128:s2"), Catch::Contains("8192 keys"));  // 16384 a split
  CHECK_THROWS_WITH(parse_attention_shape("decode:1x32x8x1024x128:s32"), Catch::Contains("64 to 8192"));  // 32 a split
  CHECK_THROWS(parse_attention_shape("decode:1x32x8x1024x128:s0"));
  CHECK_THROWS(parse_attention_shape("decode:1x32x8x1024x128:s08"));
  CHECK_THROWS(parse_attention_shape("prefill:1x32x8x1024x128:s8"));
  CHECK(decode_split_candidates(parse_attention_shape("decode:1x32x8x32768x128")) ==
        std::vector<std::string>{"s4", "s8", "s16", "s32", "s64", "s128", "s256", "s512"});
  CHECK(decode_split_candidates(parse_attention_shape("decode:8x32x8x100x128")) == std::vector<std::string>{"s1"});
  CHECK(decode_split_candidates(parse_attention_shape("decode:1x32x8x32768x128:s32")).empty());  // it names its own
  CHECK_THROWS_WITH(parse_attention_shape("decode:1x1x1x6400000x64:s99999"), Catch::Contains("at most 4096 splits"));
  CHECK(split_count("m64n128") == 0);
  CHECK_FALSE(splits_fit(split_count("m64n128"), 4096));
  CHECK_FALSE(splits_fit(1, 16384));  // a tuned "s1" from another build's file: 16384 keys in one split
  CHECK(parse_attention_shape("prefill:2x16x16x8192x128:wgm128n128w8s2").tile == "wgm128n128w8s2");
  CHECK_THROWS(parse_attention_shape("prefill:2x16x16x8192x128:wm128n128w8s2"));
  CHECK(parse_attention_shape("prefill:2x16x16x8192x128:wgm128n128w8s2o").tile == "wgm128n128w8s2o");
  CHECK_THROWS(parse_attention_shape("prefill:2x16x16x8192x128:wgm128n128w8s2x"));
  CHECK(parse_attention_shape("prefill:2x16x16x8192x128:wgm128n128w12s2otp").tile == "wgm128n128w12s2otp");
  CHECK(parse_attention_shape("prefill:2x16x16x8192x128:wgm128n128w12s2ot").tile == "wgm128n128w12s2ot");
  CHECK_THROWS(parse_attention_shape("prefill:2x16x16x8192x128:wgm128n128w12s2pt"));
  CHECK_THROWS(parse_attention_shape("prefill:2x16x16x8192x128:wgm128n128w12s2oo"));
  CHECK_THROWS_WITH(parse_attention_shape("prefill:1x32x8x1024x128:m128n64w4"), Catch::Contains("write prefill:"));
  CHECK(parse_attention_shape("prefill:1x32x8x1024x128:causal:cublaslt").impl == "cublaslt");
  CHECK_THROWS_WITH(parse_attention_shape("decode:1x32x8x1024x128:cublaslt"), Catch::Contains("prefill path"));
  // cuDNN's attention: prefill and decode on CUDA, no tile of ours, its own name in the point's.
  s = parse_attention_shape("prefill:1x16x16x3000x128:causal:cudnn");
  CHECK(s.impl == "cudnn");
  CHECK(make_attention_problem(s, Dtype::bf16, "cuda").shape == "prefill_b1_hq16_hkv16_s3000_d128_causal_cudnn");
  s = parse_attention_shape("decode:8x32x8x5000x128:cudnn");
  CHECK(make_attention_problem(s, Dtype::bf16, "cuda").shape == "decode_b8_hq32_hkv8_kv5000_d128_contiguous_cudnn");
  CHECK(make_attention_problem(parse_attention_shape("decode:8x32x8x5000x128"), Dtype::bf16, "cuda").shape ==
        "decode_b8_hq32_hkv8_kv5000_d128_contiguous");
  CHECK(decode_split_candidates(s).empty());  // cuDNN chooses its own splits
  CHECK(cudnn_unsupported(s, Dtype::bf16).empty());
  CHECK_THAT(cudnn_unsupported(s, Dtype::fp32), Catch::Contains("bf16 or fp16"));
  CHECK_THAT(cudnn_unsupported(parse_attention_shape("decode:1x8x8x64x64:paged16:cudnn"), Dtype::fp16),
             Catch::Contains("contiguous"));
  CHECK_THROWS_WITH(make_attention_problem(s, Dtype::bf16, "cpu"), Catch::Contains("--backend cuda"));
  CHECK_THROWS_WITH(parse_attention_shape("decode:1x32x8x1024x128:cudnn:s8"), Catch::Contains("takes no tile"));
  CHECK_THROWS_WITH(parse_attention_shape("prefill:1x32x8x1024x128:cudnn:m128n64w4s2"), Catch::Contains("takes no tile"));
  // The score matrix is cuDNN's own business (on chip): only the unfused paths count it.
  const auto fused = make_attention_problem(parse_attention_shape("prefill:1x16x16x1024x128"), Dtype::bf16, "cuda");
  CHECK(make_attention_problem(parse_attention_shape("prefill:1x16x16x1024x128:cudnn"), Dtype::bf16, "cuda").memory_bytes ==
        fused.memory_bytes);
  CHECK(make_attention_problem(parse_attention_shape("prefill:1x16x16x1024x128:cublaslt"), Dtype::bf16, "cuda").memory_bytes >
        fused.memory_bytes);
}

namespace {
// oneDNN 2.6 has bf16 matmuls from AVX-512 (emulated) up; ONEDNN_MAX_CPU_ISA caps it.
bool onednn_has_bf16_matmul() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  return (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core;
}
}  // namespace

TEST_CASE("CPU attention matches the reference: fused and oneDNN, causal or not, GQA, odd lengths, paged", "[attention]") {
  struct Case {
    const char* shape;
    Dtype dtype;
  };
  const Case cases[] = {
      {"prefill:1x4x4x77x64", Dtype::fp32},          // MHA, a length off the tile grid
      {"prefill:2x8x2x130x64:causal", Dtype::fp32},  // GQA 4:1, causal, odd length
      {"prefill:1x4x2x600x64:causal", Dtype::fp32},  // several row and key tiles, the diagonal across them
      {"prefill:2x2x2x300x128", Dtype::fp32},        // a last key tile of 44
      {"prefill:1x6x1x65x128:causal", Dtype::bf16},  // MQA, bf16
      // bf16 on oneDNN's bf16 tiles where the CPU has bf16 units: the diagonal across tiles,
      // a last key tile of 44, GQA past one row tile
      {"prefill:1x4x2x600x64:causal", Dtype::bf16},
      {"prefill:2x2x2x300x128", Dtype::bf16},
      {"prefill:1x8x2x77x128", Dtype::bf16},
      // CPU tiles other than the default, as `rooftop tune` tries them: short and long tiles
      {"prefill:1x4x2x600x64:causal:m64n128", Dtype::fp32},
      {"prefill:2x2x2x300x128:m512n512", Dtype::fp32},
      {"prefill:1x4x2x33x64:causal", Dtype::fp16},
      {"prefill:1x8x2x100x64:onednn", Dtype::fp32},
      {"prefill:1x8x2x100x64:causal:onednn", Dtype::bf16},
      {"decode:3x8x2x96x128", Dtype::fp32},
      {"decode:3x8x2x96x128:paged16", Dtype::bf16},  // shuffled block table
      {"decode:2x32x8x160x64:paged32", Dtype::fp32},
      // few (batch, KV head) pairs: the cache split along its length (splits start on chunk
      // and so page boundaries), a paged cache across splits
      {"decode:1x8x2x2100x64", Dtype::fp32},
      {"decode:1x8x1x2000x128:paged16", Dtype::bf16},
      {"decode:1x4x4x37x128", Dtype::bf16},  // MHA, shorter than one split, a chunk of 5
  };
  std::vector<Case> all(std::begin(cases), std::end(cases));
  // A CPU tile in bf16 only where the CPU has bf16 units (elsewhere bf16 has no tiles).
  if (OnednnTiledAttention::native_bf16()) all.push_back({"prefill:2x2x2x300x128:m512n512", Dtype::bf16});
  for (const auto& c : all) {
    INFO(c.shape << " " << dtype_name(c.dtype));
    const auto p = make_attention_problem(parse_attention_shape(c.shape), c.dtype, "cpu");
    // oneDNN's composed attention in bf16 needs its bf16 matmul (AVX-512 up): below that it
    // is refused with the reason, and the fused path's bf16 cases above still run.
    if (c.dtype == Dtype::bf16 && std::string(c.shape).find("onednn") != std::string::npos && !onednn_has_bf16_matmul()) {
      CHECK_THROWS_WITH(create_attention_cpu(p, fresh_seed()), Catch::Contains("on this CPU"));
      continue;
    }
    auto instance = create_attention_cpu(p, fresh_seed());
    const auto result = instance->check();
    INFO(result.worst_element << " ratio " << result.max_error_ratio << " (" << result.tolerance << ")");
    CHECK(result.passed);
    CHECK(result.elements_checked == result.elements_total);
  }
}

TEST_CASE("CPU bf16 decode: both paths (AVX512_BF16 dot products where the CPU has them) match the reference",
          "[attention]") {
  std::vector<CpuDecodePath> paths{CpuDecodePath::fp32_fma};
  if (cpu_has_bf16_dot()) paths.push_back(CpuDecodePath::bf16_dot);
  else WARN("this CPU has no AVX512_BF16: only the fp32 path is checked here");
  // Chunks of 16 keys whole and short (odd: a last key without a pair), pages of 16 and 32
  // split across threads, D 64 and 128, GQA 1 to 8.
  const char* shapes[] = {"decode:3x8x2x96x128",         "decode:2x8x2x101x64",         "decode:1x8x1x2000x128:paged16",
                          "decode:2x32x4x352x128:paged32", "decode:1x4x4x37x128",        "decode:1x8x8x17x64",
                          "decode:1x16x2x1100x64"};
  for (const auto path : paths)
    for (const char* shape : shapes) {
      INFO(shape << (path == CpuDecodePath::bf16_dot ? " bf16 dot" : " fp32 FMAs"));
      const auto seed = fresh_seed();
      AttentionData data(parse_attention_shape(shape), Dtype::bf16, seed);
      REQUIRE(decode_kernel_applies(data));
      data.poison_output();
      decode_attention_cpu(data, path);
      const auto result = data.check(seed + 7);
      INFO(result.worst_element << " ratio " << result.max_error_ratio << " (" << result.tolerance << ")");
      CHECK(result.passed);
      CHECK(result.elements_checked == result.elements_total);
    }
  CHECK_THAT(create_attention_cpu(make_attention_problem(parse_attention_shape("decode:1x8x2x512x128"), Dtype::bf16, "cpu"), 1)
                 ->implementation(),
             Catch::Contains(cpu_has_bf16_dot() ? "AVX512_BF16 dot products" : "fp32 FMAs"));
}

TEST_CASE("CPU decode: every query-per-KV group from 1 to 16 streams the cache on the bandwidth kernel", "[attention]") {
  // No group falls back to the fused prefill kernel: the group's heads are the rows of one
  // pass over the cache (padded to a multiple of 4 with zero rows), odd groups included.
  // Batch 2 and 2 KV heads (a padded row that wrote would land in another head's output), a
  // last short chunk of 16 keys.
  for (int g = 1; g <= 16; ++g)
    for (const Dtype dtype : {Dtype::fp32, Dtype::bf16}) {
      const auto text = fmt::format("decode:2x{}x2x{}x{}{}", 2 * g, g % 2 ? 208 : 201, g % 3 ? 64 : 128,
                                    g % 2 ? ":paged16" : "");
      INFO(text << " " << dtype_name(dtype));
      const auto p = make_attention_problem(parse_attention_shape(text), dtype, "cpu");
      auto instance = create_attention_cpu(p, fresh_seed());
      CHECK_THAT(instance->implementation(), Catch::Contains("bandwidth kernel"));
      const auto result = instance->check();
      INFO(result.worst_element << " ratio " << result.max_error_ratio << " (" << result.tolerance << ")");
      CHECK(result.passed);
      CHECK(result.elements_checked == result.elements_total);
    }
}

TEST_CASE("CPU paths: prefill on oneDNN tiles (bf16 where the CPU has bf16 units), decode streamed, the rest fused",
          "[attention]") {
  auto implementation = [](const char* shape, Dtype d) {
    return create_attention_cpu(make_attention_problem(parse_attention_shape(shape), d, "cpu"), 1)->implementation();
  };
  CHECK_THAT(implementation("prefill:1x8x2x512x128", Dtype::fp32), Catch::Contains("oneDNN matmul"));
  // Chosen by the ISA oneDNN finds at run time, so this holds on any CPU.
  CHECK_THAT(implementation("prefill:1x8x2x512x128", Dtype::bf16),
             Catch::Contains(OnednnTiledAttention::native_bf16() ? "bf16: online softmax" : "16x64 tiles"));
  CHECK_THAT(implementation("prefill:1x8x2x512x128", Dtype::fp16), Catch::Contains("16x64 tiles"));
  CHECK_THAT(implementation("decode:1x8x2x512x128", Dtype::fp32), Catch::Contains("bandwidth kernel"));
  CHECK_THAT(implementation("decode:1x8x2x512x128", Dtype::fp16), Catch::Contains("16x64 tiles"));
}

TEST_CASE("CPU tiles: names, limits, candidates, and a GPU tile is not one", "[attention]") {
  CHECK(parse_attention_shape("prefill:1x8x2x512x128:m128n256").tile == "m128n256");
  CHECK(parse_attention_shape("prefill:1x8x2x512x128:wgm128n128w8s2").tile == "wgm128n128w8s2");
  CHECK_THROWS(parse_attention_shape("prefill:1x8x2x512x128:wgm128n128"));
  CHECK_THROWS(parse_attention_shape("prefill:1x8x2x512x128:m128"));
  CHECK(OnednnTiledAttention::tile_named("m64n512").rows == 64);
  CHECK(OnednnTiledAttention::tile_named("m64n512").keys == 512);
  CHECK(OnednnTiledAttention::tile_named("").keys == 256);
  CHECK_THROWS_AS(OnednnTiledAttention::tile_named("m128n100"), PointSkipped);  // keys not a multiple of 16
  CHECK_THROWS_WITH(OnednnTiledAttention::tile_named("m128n64w4s2"), Catch::Contains("GPU prefill kernel"));
  CHECK_THROWS_AS(OnednnTiledAttention::tile_named("m064n128"), PointSkipped);         // one tile, one name
  CHECK_THROWS_AS(OnednnTiledAttention::tile_named("m4294967360n128"), PointSkipped);  // no wrap-around to 64
  CHECK_THROWS_WITH(make_attention_problem(parse_attention_shape("prefill:1x8x2x64x64:m128n64"), Dtype::bf16, "cuda"),
                    Catch::Contains("CPU path's tiles"));
  const auto fp32 = parse_attention_shape("prefill:1x8x2x512x128");
  CHECK(cpu_tile_candidates(fp32, Dtype::fp32).size() == 12);
  CHECK(cpu_tile_candidates(fp32, Dtype::fp16).empty());  // our own kernel: one tiling
  CHECK(cpu_tile_candidates(parse_attention_shape("decode:1x32x8x1024x128"), Dtype::fp32).empty());
  CHECK(cpu_tile_candidates(parse_attention_shape("prefill:1x8x2x512x128:m64n128"), Dtype::fp32).empty());  // named
  auto gpu_tile = make_attention_problem(parse_attention_shape("prefill:1x8x2x64x64:m128n64w4s2"), Dtype::fp32, "cpu");
  CHECK_THROWS_WITH(create_attention_cpu(gpu_tile, 1), Catch::Contains("GPU prefill kernel"));
}

TEST_CASE("the CPU softmax's arithmetic: row maximum at any length, exp within 1e-6 where it counts", "[attention]") {
  std::mt19937 rng(static_cast<std::mt19937::result_type>(fresh_seed()));
  std::uniform_real_distribution<float> u(-50.0f, 50.0f);
  for (int n : {0, 1, 15, 16, 17, 100, 256}) {
    std::vector<float> x(static_cast<std::size_t>(n));
    for (float& v : x) v = u(rng);
    const float init = u(rng);
    float expected = init;
    for (float v : x) expected = std::max(expected, v);
    CAPTURE(n);
    CHECK(row_max(x.data(), n, init) == expected);
    CHECK(row_max(x.data(), n, -INFINITY) == (n ? *std::max_element(x.begin(), x.end()) : -INFINITY));
    CHECK(row_max(x.data(), n, 60.0f) == 60.0f);  // the initial value above every score
    for (int k = 0; k < n; ++k) {  // the maximum in every position: each vector lane and the tail
      const float kept = x[static_cast<std::size_t>(k)];
      x[static_cast<std::size_t>(k)] = 75.0f;
      CHECK(row_max(x.data(), n, -INFINITY) == 75.0f);
      x[static_cast<std::size_t>(k)] = kept;
    }
  }
  for (float x = -90.0f; x <= 0.0f; x += 0.37f) {
    CAPTURE(x);  // x * log2(e) rounded to fp32 adds a relative error of up to |x| x 4e-8
    CHECK(fast_exp(x) == Approx(std::exp(x)).epsilon(x > -16 ? 1e-6 : 5e-6).margin(1e-37));
  }
  CHECK(fast_exp(0.0f) == 1.0f);
}

TEST_CASE("the attention reference catches a wrong or unwritten output", "[attention]") {
  AttentionData data(parse_attention_shape("prefill:1x4x2x40x64:causal"), Dtype::fp32, fresh_seed());
  data.poison_output();
  const auto unwritten = data.check(1);
  CHECK_FALSE(unwritten.passed);
  CHECK_THAT(unwritten.worst_element, Catch::Contains("never written"));

  fused_attention_cpu(data);
  REQUIRE(data.check(1).passed);
  // One element (head 3, position 17, dim 5) off by 1e-3: far above fp32 rounding.
  auto* o = static_cast<float*>(data.o());
  o[(3 * 40 + 17) * 64 + 5] += 1e-3f;
  const auto wrong = data.check(1);
  CHECK_FALSE(wrong.passed);
  CHECK_THAT(wrong.worst_element, Catch::Contains("O[b0,h3,i17,d5]"));
}

TEST_CASE("fp16 conversions: every half round-trips, floats round to nearest even", "[attention]") {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_to_float(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) continue;
    INFO("half 0x" << std::hex << h);
    REQUIRE(float_to_half(f) == h);
  }
  CHECK(half_to_float(0x3c00) == 1.0f);
  CHECK(half_to_float(0x0001) == 0x1p-24f);               // smallest subnormal
  CHECK(float_to_half(1.0f + 0x1p-11f) == 0x3c00);        // halfway: to even (down)
  CHECK(float_to_half(1.0f + 3 * 0x1p-11f) == 0x3c02);    // halfway: to even (up)
  CHECK(float_to_half(65520.0f) == 0x7c00);               // rounds past the largest half: inf
  CHECK(std::isnan(half_to_float(float_to_half(NAN))));
}

#if defined(ROOFTOP_HAVE_CUDA)
TEST_CASE("the CUDA decode kernel takes every group from 1 to 16: fp32 above 8 in passes over the cache", "[attention]") {
  CHECK(kMaxDecodeGroup == 16);
  for (std::int64_t g = 1; g <= kMaxDecodeGroup; ++g) {
    INFO("group " << g);
    CHECK(decode_passes(Dtype::bf16, g) == 1);  // the tensor-core kernel: one m16 tile of rows
    CHECK(decode_passes(Dtype::fp16, g) == 1);
    CHECK(decode_passes(Dtype::fp32, g) == (g <= 8 ? 1 : 2));  // 8 rows in registers
  }
  // The workspace holds a ticket for every block row (at most one a query head).
  CHECK(decode_workspace_floats(2, 24, 8, 128, 3) == 2 * 24 * 3 * 130 + 2 * 24);
  // The attention suite accepts any group; the kernel's limit is said at the point.
  CHECK_NOTHROW(make_attention_problem(parse_attention_shape("decode:1x12x4x64x64"), Dtype::bf16, "cuda"));
}

TEST_CASE("decode splits: the fewest waves x stages, within the split-size bounds", "[attention]") {
  // B = 32 x 8 KV heads on 792 resident blocks (6 a multiprocessor on 132), waves x (stages
  // of 64 keys + 2 for a block's start): 4 splits (the fewest for 32k keys) make 2 waves of
  // 128 stages (260), 5 two of 103 (210), 6 two of 86 (176), 256 splits 83 waves of 2 (332).
  CHECK(decode_splits(32, 8, 32768, 792) == 6);
  // A wave need not be whole: on the H100's 264 resident blocks (2 a multiprocessor), 32
  // splits at B1 32k (256 blocks, not 33's 264: the same 16 stages), 4 at B8 5000 (not 8,
  // two waves of half the stages), 1 at B32 4k: what `tune` chose there.
  CHECK(decode_splits(1, 8, 32768, 264) == 32);
  CHECK(decode_splits(8, 8, 5000, 264) == 4);
  CHECK(decode_splits(32, 8, 4096, 264) == 1);
  // Few pairs never fill a wave: the most splits (kMinSplitKeys keys each) come closest.
  CHECK(decode_splits(1, 8, 1024, 792) == 1024 / kMinSplitKeys);
  // Within the kernel's limits (each split 64 to 8192 keys, at most 4096 splits) at any
  // length, a million keys at B = 1 included.
  for (std::int64_t skv : {256, 1000, 4096, 32768, 131072, 1 << 20})
    for (std::int64_t b : {1, 8, 64})
      for (int resident : {264, 792}) {
        const int s = decode_splits(b, 8, skv, resident);
        INFO(b << " x " << skv << " on " << resident << " -> " << s);
        CHECK(splits_fit(s, skv));
      }
}
#endif
