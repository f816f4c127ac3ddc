// GPU tests of the CUDA backend (label gpu): run where a GPU is, SKIP (exit 4) elsewhere.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string>
#include <random>
#include <vector>

#include "devices/cuda/cublaslt_matmul.hpp"
#if ROOFTOP_HAVE_CUDNN
#include "devices/cuda/cudnn_api.hpp"
#endif
#include "devices/cuda/cuda_info.hpp"
#include "devices/cuda/cuda_timer.hpp"
#include "devices/cuda/device_reading.hpp"
#include "devices/cuda/gpu_kernels.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "harness/bf16.hpp"
#include "harness/dtype_facts.hpp"
#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "suites/attention/attention_cuda.hpp"
#include "suites/attention/attention_cuda_decode.cuh"
#include "suites/attention/attention_cuda_prefill.cuh"
#include "suites/attention/attention_problem.hpp"
#include "devices/devices.hpp"
#include "harness/backend.hpp"
#include "harness/runner.hpp"
#include "harness/watchdog.hpp"
#include "suites/gemm/gemm_cuda.hpp"
#include "suites/gemm/gemm_cuda_reference.hpp"
#include "suites/gemm/gemm_problem.hpp"
#include "suites/gemm/gemm_reference.hpp"
#include "suites/inference/cuda_decoder.hpp"
#include "suites/inference/cuda_gemv.cuh"
#include "suites/inference/inference_check.hpp"
#include "suites/inference/model_config.hpp"
#include "suites/inference/decoder_weights.hpp"
#include "tests/transformers_fixture_check.hpp"

using namespace rooftop;

namespace {
// Every test case has a time bound: a hang (a library waiting forever, a kernel that never
// ends) fails with the case's name and its last point instead of running until CI's limit.
// ROOFTOP_GPU_TEST_SECONDS sets the bound; a case that is long by design says its own in a
// tag "[seconds=N]", which the variable overrides too.
double time_bound_seconds(const Catch::TestCaseInfo& info) {
  if (const char* env = std::getenv("ROOFTOP_GPU_TEST_SECONDS"); env && std::atof(env) > 0) return std::atof(env);
  for (const auto& tag : info.tags)
    if (tag.rfind("seconds=", 0) == 0) return std::atof(tag.c_str() + 8);
  return 300;
}

Watchdog& time_bound() {
  static Watchdog dog("the GPU test hangs or is far slower than it should be (ROOFTOP_GPU_TEST_SECONDS allows longer)",
                      kExitFailure);
  return dog;
}
std::string bounded_case;  // "test case "NAME" (bound N s)", for the messages of its steps

struct TimeBound : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    const double seconds = time_bound_seconds(info);
    bounded_case = fmt::format("test case \"{}\" (bound {:.0f} s)", info.name, seconds);
    time_bound().arm(seconds, bounded_case);
  }
  void testCaseEnded(const Catch::TestCaseStats&) override { time_bound().disarm(); }
};
CATCH_REGISTER_LISTENER(TimeBound)

// Names the point a test case has reached, for the time bound's message.
void at_point(const std::string& point) { time_bound().rename(bounded_case + ", at " + point); }

// A fresh seed per run (printed by Catch2 on failure through the test name's INFO).
std::uint64_t fresh_seed() { return Catch::rngSeed() * 7919 + 17; }

// One attention point on the GPU, on fresh inputs, against the reference.
void check_attention_point(const attention::AttentionShape& shape, Dtype d) {
  const auto p = attention::make_attention_problem(shape, d, "cuda");
  at_point(p.name());
  auto instance = attention::create_attention_cuda(p, fresh_seed());
  const auto c = instance->check();
  INFO(p.name() << ": " << c.worst_element << " ratio " << c.max_error_ratio << " (" << c.tolerance << ")");
  CHECK(c.passed);
}
}  // namespace

TEST_CASE("cuBLASLt GEMMs match the reference in every dtype, on shapes off the tile grid", "[gpu]") {
  const gemm::GemmShape shapes[] = {{96, 160, 208}, {1, 4096, 1024}, {256, 384, 512}, {17, 48, 2064}};
  int checked = 0;
  for (Dtype d : all_dtypes())
    for (const auto& s : shapes) {
      INFO(dtype_name(d) << " " << s.m << "x" << s.n << "x" << s.k << " seed " << fresh_seed());
      const auto p = gemm::make_gemm_problem(s, d, "cuda", "test");
      try {
        auto instance = gemm::create_gemm_cuda(p, fresh_seed());
        const auto c = instance->check();
        INFO(c.worst_element << " ratio " << c.max_error_ratio << " (" << c.tolerance << ")");
        CHECK(c.passed);
        CHECK(c.elements_checked >= std::min<std::uint64_t>(static_cast<std::uint64_t>(s.m * s.n), gemm::kGpuCheckedElements));
        CHECK_FALSE(instance->implementation().empty());
        ++checked;
      } catch (const PointSkipped& e) {
        WARN("skipped: " << e.what());  // fp8 before sm_89, or no algorithm for a shape
      }
    }
  // Every point skipped would pass having checked nothing: fp32 runs on every GPU cuBLASLt serves.
  CHECK(checked >= static_cast<int>(std::size(shapes)));
}

TEST_CASE("split-KV decode matches the reference: contiguous and paged, GQA ratios, odd lengths", "[gpu][attention]") {
  const char* shapes[] = {"decode:3x8x8x96x64", "decode:2x32x8x1000x128", "decode:5x16x2x4096x128:paged16",
                          "decode:4x32x4x2080x128:paged32", "decode:1x8x1x33x64"};
  for (const char* text : shapes)
    for (Dtype d : {Dtype::bf16, Dtype::fp16, Dtype::fp32}) check_attention_point(attention::parse_attention_shape(text), d);
  // A group past the kernel's 16 is skipped before launch, and says so.
  const auto p = attention::make_attention_problem(attention::parse_attention_shape("decode:1x17x1x64x64"), Dtype::bf16, "cuda");
  CHECK_THROWS_WITH(attention::create_attention_cuda(p, 1), Catch::Contains("no fast decode kernel for group 17"));
}

TEST_CASE("split-KV decode runs every group from 1 to 16: odd groups on the next power of two's kernel, rows masked",
          "[gpu][attention]") {
  // The odd groups at both head dims, contiguous and paged, in every dtype (fp32 takes
  // groups above 8 in two passes): batch 2 and 2 KV heads, so a masked row that wrote
  // anything would land in another head's output, and 1008 keys (63 pages of 16; not a
  // multiple of the kernels' 64-key stages).
  for (const int g : {3, 5, 6, 7, 12})
    for (const int d : {64, 128})
      for (const char* layout : {"", ":paged16"}) {
        const auto shape = attention::parse_attention_shape(fmt::format("decode:2x{}x2x1008x{}{}", 2 * g, d, layout));
        for (Dtype dtype : {Dtype::bf16, Dtype::fp16, Dtype::fp32}) check_attention_point(shape, dtype);
      }
  // Every group 1 to 16 once, at the decoder's layout (8 KV heads, head dim 128) and at 64
  // with one KV head paged by 32, bf16 and fp32; the implementation names the group.
  for (std::int64_t g = 1; g <= 16; ++g)
    for (const auto& text : {fmt::format("decode:1x{}x8x528x128", 8 * g), fmt::format("decode:3x{}x1x96x64:paged32", g)})
      for (Dtype dtype : {Dtype::bf16, Dtype::fp32}) {
        const auto shape = attention::parse_attention_shape(text);
        check_attention_point(shape, dtype);
        const auto instance = attention::create_attention_cuda(attention::make_attention_problem(shape, dtype, "cuda"), 1);
        CHECK_THAT(instance->implementation(), Catch::Contains(fmt::format("group {}", g)));
      }
}

namespace {
// Lengths off every tile (BM 64/128, BN 32/64), MHA, GQA 4:1 and MQA, both head dims.
// The three shorter first (the default sample's).
constexpr const char* kPrefillCheckShapes[] = {"prefill:2x8x2x300x128:causal", "prefill:1x4x4x129x64",
                                               "prefill:3x4x2x77x64:causal", "prefill:1x8x1x1000x128",
                                               "prefill:1x2x2x1024x128:causal"};

// Checks compiled prefill tile number `index` on the shapes and dtypes given; a wgmma tile
// that this head dim cannot use is skipped and says why.
void check_prefill_tile(std::size_t index, std::span<const char* const> shapes, std::span<const Dtype> dtypes) {
  const auto config = attention::prefill_configs()[index];
  CHECK(attention::parse_config_name(attention::config_name(config)) == config);  // a name runs what it says
  for (const char* text : shapes) {
    auto shape = attention::parse_attention_shape(text);
    shape.tile = attention::config_name(config);
    if (const auto why = attention::prefill_unsupported(config, shape.d, Dtype::bf16); config.wgmma && !why.empty()) {
      WARN(why);
      continue;
    }
    for (Dtype d : dtypes) check_attention_point(shape, d);
  }
}
}  // namespace

// The default: every tile on one of the three shorter shapes in one dtype, in turn, so that
// each shape and both dtypes meet many tiles (the whole sweep took 290 s on an H200, most of
// it the CPU's reference at 1000 positions; the default a tenth, the GPU tests under 2 minutes).
TEST_CASE("fused prefill matches the reference in a sample of every compiled tile: causal, GQA, odd lengths",
          "[gpu][attention]") {
  const std::size_t tiles = attention::prefill_configs().size(), shapes = 3;  // the shapes of 77-300 positions
  static_assert(std::size(kPrefillCheckShapes) == 5);
  for (std::size_t i = 0; i < tiles; ++i) {
    const Dtype dtype[] = {i / shapes % 2 == 0 ? Dtype::bf16 : Dtype::fp16};
    // The tile's turn of the shapes, or the next its head dim allows (a wgmma tile is for one).
    const auto config = attention::prefill_configs()[i];
    std::size_t pick = i % shapes;
    for (std::size_t k = 0; k < shapes; ++k) {
      pick = (i + k) % shapes;
      const auto d = attention::parse_attention_shape(kPrefillCheckShapes[pick]).d;
      if (!config.wgmma || attention::prefill_unsupported(config, d, Dtype::bf16).empty()) break;
    }
    check_prefill_tile(i, std::span(kPrefillCheckShapes).subspan(pick, 1), dtype);
  }
}

// The whole sweep, every tile on every shape in both dtypes: run it with the tag
// ("rooftop_gpu_tests [full-sweep]") after a change to the prefill kernels.
TEST_CASE("fused prefill matches the reference in every compiled tile: causal, GQA, odd lengths",
          "[gpu][attention][.][full-sweep][seconds=900]") {
  const Dtype dtypes[] = {Dtype::bf16, Dtype::fp16};
  for (std::size_t i = 0; i < attention::prefill_configs().size(); ++i) check_prefill_tile(i, kPrefillCheckShapes, dtypes);
}

TEST_CASE("prefill: fp32 and an unknown tile are refused before launch", "[gpu][attention]") {
  // fp32 has no tensor-core path, an unknown tile is named: both skipped before launch.
  auto fp32 = attention::make_attention_problem(attention::parse_attention_shape("prefill:1x2x2x64x64"), Dtype::fp32, "cuda");
  CHECK_THROWS_AS(attention::create_attention_cuda(fp32, 1), PointSkipped);
  auto odd = attention::make_attention_problem(attention::parse_attention_shape("prefill:1x2x2x64x64:m96n64w4s2"), Dtype::bf16, "cuda");
  CHECK_THROWS_WITH(attention::create_attention_cuda(odd, 1), Catch::Contains("not compiled"));
}

// fp16 takes bf16's code paths in cuBLASLt and cuDNN: the default checks bf16, the full sweep
// ("rooftop_gpu_tests [full-sweep]") both.
void check_cublaslt_attention(std::initializer_list<Dtype> dtypes) {
  const char* shapes[] = {"prefill:2x8x2x300x128:causal:cublaslt", "prefill:1x4x4x129x64:cublaslt",
                          "prefill:1x8x1x1000x128:cublaslt"};
  for (const char* text : shapes)
    for (Dtype d : dtypes) check_attention_point(attention::parse_attention_shape(text), d);
}
TEST_CASE("the unfused cuBLASLt path matches the reference: causal, GQA, odd lengths", "[gpu][attention]") {
  check_cublaslt_attention({Dtype::bf16});
}
TEST_CASE("the unfused cuBLASLt path matches the reference in fp16 too", "[gpu][attention][.][full-sweep]") {
  check_cublaslt_attention({Dtype::fp16});
}

void check_cudnn_attention(std::initializer_list<Dtype> dtypes) {
  const char* shapes[] = {"prefill:2x8x2x300x128:causal:cudnn", "prefill:1x4x4x129x64:cudnn",
                          "prefill:1x8x1x1000x128:cudnn", "decode:3x32x8x1000x128:cudnn", "decode:1x8x8x4096x64:cudnn"};
#if ROOFTOP_HAVE_CUDNN
  // Where cuDNN 9 loads, every point must run: an engine refusing our graph is a failure here.
  std::string loaded;
  try {
    loaded = "cuDNN " + gpu::cudnn_version() + " from " + gpu::cudnn().path;
  } catch (const PointSkipped& e) {
    WARN("skipped: " << e.what());
  }
  INFO(loaded);
  if (!loaded.empty())
    for (const char* text : shapes)
      for (Dtype d : dtypes) check_attention_point(attention::parse_attention_shape(text), d);
#else
  (void)dtypes;
  WARN("built without cuDNN's headers: " << shapes[0] << " and the others are not run");
#endif
}
TEST_CASE("cuDNN's fused attention matches the reference: causal, GQA, odd lengths, decode", "[gpu][attention]") {
  check_cudnn_attention({Dtype::bf16});
  // fp32 and paged caches are refused before any graph is built.
  auto fp32 = attention::make_attention_problem(attention::parse_attention_shape("prefill:1x2x2x64x64:cudnn"), Dtype::fp32, "cuda");
  CHECK_THROWS_WITH(attention::create_attention_cuda(fp32, 1), Catch::Contains("bf16 or fp16"));
  auto paged = attention::make_attention_problem(attention::parse_attention_shape("decode:1x8x8x64x64:paged16:cudnn"),
                                                 Dtype::bf16, "cuda");
  CHECK_THROWS_WITH(attention::create_attention_cuda(paged, 1), Catch::Contains("paged"));
}
TEST_CASE("cuDNN's fused attention matches the reference in fp16 too", "[gpu][attention][.][full-sweep]") {
  check_cudnn_attention({Dtype::fp16});
}

TEST_CASE("the GPU reference catches a wrong element and unwritten output", "[gpu]") {
  const gemm::GemmShape s{64, 96, 128};
  gpu::CublasLtMatmul mm(Dtype::bf16, s.m, s.n, s.k);
  gpu::fill_uniform(Dtype::bf16, mm.a(), s.m * s.k, fresh_seed(), -1, 1);
  gpu::fill_uniform(Dtype::bf16, mm.b(), s.n * s.k, fresh_seed() + 1, -1, 1);
  const std::size_t elements = s.m * s.n;

  // Unwritten: poisoned and never computed.
  gpu::poison(gpu::OutputType::bf16, mm.d(), elements);
  CHECK(gpu::count_poisoned(gpu::OutputType::bf16, mm.d(), elements) == elements);
  auto refs = gemm::reference_on_gpu(Dtype::bf16, s, mm.a(), mm.b(), mm.d(), 1);
  CHECK_FALSE(gemm::judge_elements(Dtype::bf16, s.k, refs, elements, elements).passed);

  // Computed, then one element changed by a small relative amount: caught.
  mm.execute();
  CHECK(gpu::count_poisoned(gpu::OutputType::bf16, mm.d(), elements) == 0);
  refs = gemm::reference_on_gpu(Dtype::bf16, s, mm.a(), mm.b(), mm.d(), 1);
  CHECK(gemm::judge_elements(Dtype::bf16, s.k, refs, elements, 0).passed);
  std::vector<std::uint16_t> host(elements);
  ROOFTOP_GPU_CHECK(cudaMemcpy(host.data(), mm.d(), elements * 2, cudaMemcpyDeviceToHost));
  const std::size_t victim = 37 * s.n + 11;
  host[victim] ^= 0x0040;  // flips a high mantissa bit: ~25% relative change
  ROOFTOP_GPU_CHECK(cudaMemcpy(mm.d(), host.data(), elements * 2, cudaMemcpyHostToDevice));
  refs = gemm::reference_on_gpu(Dtype::bf16, s, mm.a(), mm.b(), mm.d(), 1);
  const auto c = gemm::judge_elements(Dtype::bf16, s.k, refs, elements, 0);
  CHECK_FALSE(c.passed);
  CHECK(c.worst_element.find("C[37,11]") != std::string::npos);
}

TEST_CASE("device fills are random, in range and reproducible", "[gpu]") {
  const std::size_t n = 1 << 20;
  gpu::DeviceBuffer a(n * 4), b(n * 4);
  gpu::fill_uniform(Dtype::fp32, a.get(), n, 42, -1, 1);
  gpu::fill_uniform(Dtype::fp32, b.get(), n, 42, -1, 1);
  std::vector<float> x(n), y(n);
  ROOFTOP_GPU_CHECK(cudaMemcpy(x.data(), a.get(), n * 4, cudaMemcpyDeviceToHost));
  ROOFTOP_GPU_CHECK(cudaMemcpy(y.data(), b.get(), n * 4, cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(x.data(), y.data(), n * 4) == 0);
  double mean = 0;
  for (float v : x) {
    REQUIRE(v >= -1.0f);
    REQUIRE(v <= 1.0f);
    mean += v;
  }
  mean /= n;
  CHECK(std::fabs(mean) < 0.01);
  CHECK(std::count(x.begin(), x.end(), x[0]) < 4);
}

TEST_CASE("the timer measures device time, cold timing is not faster than warm", "[gpu]") {
  const auto info = gpu::detect_gpu();
  auto timer = gpu::make_cuda_timer(info.l2_bytes, info.sm_count);
  const std::size_t bytes = 8u << 20;  // fits in L2: cold and warm differ
  gpu::DeviceBuffer src(bytes), dst(bytes);
  const auto copy = [&] { gpu::copy_words(dst.get(), src.get(), bytes, info.sm_count * 4); };
  double warm = 1e9, cold = 1e9;
  for (int i = 0; i < 20; ++i) {
    warm = std::min(warm, timer->time(copy, false));
    cold = std::min(cold, timer->time(copy, true));
  }
  INFO("warm " << warm * 1e6 << " us, cold " << cold * 1e6 << " us");
  CHECK(warm > 0);
  CHECK(warm < 1e-3);  // 16 MB moved: far under a millisecond on any recent GPU
  CHECK(cold >= 0.9 * warm);
}

TEST_CASE("a failed allocation names the call", "[gpu]") {
  try {
    gpu::DeviceBuffer huge(std::size_t{1} << 50);
    FAIL("a petabyte was allocated");
  } catch (const gpu::GpuError& e) {
    CHECK(std::string(e.what()).find("cudaMalloc") != std::string::npos);
  }
  // The context survives an out-of-memory error: later work still runs.
  gpu::DeviceBuffer small(1024);
  gpu::fill_uniform(Dtype::int8, small.get(), 1024, 1, -1, 1);
  ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
}

TEST_CASE("collectives: small points after large points of other collectives are exact on every GPU", "[gpu][collectives]") {
  // The order that once failed on 2 x H200: a 1 MiB point right after a 4 GiB point of
  // another collective, in bf16. Each point's check runs on fresh, poisoned buffers.
  RunOptions o;
  o.backend = "cuda";
  o.tier = Tier::smoke;
  o.dtypes = {"bf16"};
  o.shapes = {"all_reduce:4G", "all_gather:1M",  "alltoall:4G", "reduce_scatter:1M", "all_gather:4G",
              "sendrecv:1M",   "reduce_scatter:4G", "all_reduce:1M", "sendrecv:4G", "alltoall:1M"};
  o.repetitions = 1;
  o.min_time_s = 1e-3;
  o.suites = {"collectives"};
  register_all_backends();
  const auto& backend = find_backend("cuda");
  auto transport = backend.make_transport();
  INFO(transport->name() << " on " << transport->ranks() << " GPUs");
  bool interrupted = false;
  const auto run = run_points(o, backend, RunMetadata{}, transport.get(), interrupted);
  REQUIRE(run.results.size() == o.shapes.size());
  for (const auto& r : run.results) {
    INFO(r.problem.name() << ": " << r.reason);
    if (r.status == Status::skipped) continue;  // 4 GiB beyond a smaller GPU's memory
    CHECK(r.status == Status::ok);
    REQUIRE(r.correctness);
    CHECK(r.correctness->elements_checked > 0);
  }
}

TEST_CASE("inference: the CUDA decoder matches the double-precision reference, eager and from a graph", "[gpu][inference]") {
  // Head dim 32: the plain attention kernels; 64 and 128: the fused prefill from an empty
  // cache and the split-KV decode kernel, the position read from the device.
  struct Variant {
    std::int64_t heads, kv_heads, head_dim;
  };
  // fp8: e4m3 weights and inputs, against a reference quantising the same way.
  for (const Dtype dtype : {Dtype::bf16, Dtype::fp8})
  for (const Variant v : {Variant{8, 2, 32}, Variant{4, 2, 64}, Variant{2, 1, 128}, Variant{8, 1, 64}})
    for (const auto launch : {inference::Launch::eager, inference::Launch::graph})
    for (const bool fused : {false, true}) {  // fused: each RMSNorm in the next GEMV (bf16)
      auto config = inference::load_model_config("tiny");
      config.heads = v.heads;
      config.kv_heads = v.kv_heads;
      config.head_dim = v.head_dim;
      const auto w = inference::random_decoder_weights(config, dtype, fresh_seed());
      const auto c = inference::check_decoder(w, 2, fresh_seed(),
                                              [launch, fused](const inference::DecoderWeights& weights, std::int64_t b,
                                                              std::int64_t context, std::int64_t layers) {
                                                return std::make_unique<inference::CudaDecoder>(weights, b, context,
                                                                                                layers, launch, 0, fused);
                                              });
      if (fused && dtype == Dtype::bf16) {  // folded where the GEMV runs the projections (timed here), and said
        const inference::CudaDecoder d(w, 2, 64, -1, launch, 0, true);
        CHECK_THAT(d.implementation(), Catch::Contains(d.norms_in_projections(1) ? "decode step fused" : "norm kernels ran"));
        if (!d.norms_in_projections(1)) WARN("cuBLASLt was timed faster on a projection of tiny: norms not folded");
      }
      INFO(dtype_name(dtype) << (fused ? " fused" : "") << " heads " << v.heads << "/" << v.kv_heads << " x " << v.head_dim << ", "
                    << (launch == inference::Launch::graph ? "graph" : "eager") << ": error " << c.max_error_ratio
                    << " x the bound at " << c.worst_element << " ("
                    << c.tolerance << ")");
      CHECK(c.passed);
      CHECK(c.elements_checked > 0);
    }
}

TEST_CASE("inference: every query-per-KV group from 1 to 16 runs the split-KV decode kernel and matches the reference",
          "[gpu][inference]") {
  // Llama-3.2-3B's attention layout (24 query heads over 8 KV heads of 128: group 3) on a
  // small body of 2 layers, then other odd groups and the largest; a config JSON as a user
  // gives one. Group 17 and head dim 32 have no fast kernel: the generic one runs, matches
  // the reference, and the implementation says so.
  constexpr const char* kGroup3 = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 512, "intermediate_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 24,
    "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 4096, "max_position_embeddings": 4096,
    "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "tie_word_embeddings": true})";
  const auto base = inference::parse_model_config(kGroup3, "the group-3 test config", "group3");
  struct Variant {
    std::int64_t heads, kv_heads, head_dim;
  };
  for (const Variant v : {Variant{24, 8, 128}, Variant{12, 4, 64}, Variant{40, 8, 128}, Variant{12, 2, 64},
                          Variant{14, 2, 128}, Variant{24, 2, 64}, Variant{16, 1, 128}, Variant{17, 1, 64},
                          Variant{6, 2, 32}})
    for (const std::int64_t page : {0, 16})
      for (const auto launch : {inference::Launch::eager, inference::Launch::graph})
      for (const bool fused : {false, true}) {
        if (page && launch == inference::Launch::eager) continue;  // paged: the graph's launch only
        if (fused && !page) continue;  // fused (RoPE and the cache write in the qkv GEMV): paged, from a graph
        auto config = base;
        config.heads = v.heads;
        config.kv_heads = v.kv_heads;
        config.head_dim = v.head_dim;
        const std::int64_t group = v.heads / v.kv_heads;
        at_point(fmt::format("heads {}/{} x {}, page {}{}", v.heads, v.kv_heads, v.head_dim, page, fused ? " fused" : ""));
        const auto w = inference::random_decoder_weights(config, Dtype::bf16, fresh_seed());
        const auto c = inference::check_decoder(w, 2, fresh_seed(),
                                                [launch, page, fused](const inference::DecoderWeights& weights,
                                                                      std::int64_t b, std::int64_t context,
                                                                      std::int64_t layers) {
                                                  return std::make_unique<inference::CudaDecoder>(weights, b, context,
                                                                                                  layers, launch, page, fused);
                                                });
        if (fused) {
          const inference::CudaDecoder d(w, 2, 64, -1, launch, page, true);
          if (!d.rope_in_qkv(1)) WARN("heads " << v.heads << "/" << v.kv_heads << ": RoPE not in the qkv GEMV: " << d.implementation());
        }
        INFO("heads " << v.heads << "/" << v.kv_heads << " x " << v.head_dim << ", page " << page << (fused ? " fused" : "") << ", "
                      << (launch == inference::Launch::graph ? "graph" : "eager") << ": error " << c.max_error_ratio
                      << " x the bound at " << c.worst_element << " (" << c.tolerance << ")");
        CHECK(c.passed);
        CHECK(c.elements_checked > 0);
        const inference::CudaDecoder decoder(w, 1, 64, -1, launch, page);
        const std::string text = decoder.implementation();
        INFO(text);
        if (v.head_dim != 64 && v.head_dim != 128) {
          CHECK_THAT(text, Catch::Contains(fmt::format("no fast decode kernel for head dim {}: the generic kernel ran", v.head_dim)));
        } else if (group > attention::kMaxDecodeGroup) {
          CHECK_THAT(text, Catch::Contains(fmt::format("no fast decode kernel for group {}: the generic kernel ran", group)));
        } else {
          CHECK_THAT(text, Catch::Contains("the attention suite's split-KV decode kernel"));
          CHECK_THAT(text, !Catch::Contains("no fast decode kernel"));
        }
      }
}

// Issue 42's first step: the RMSNorm folded into the GEMV's prologue gives what the norm
// kernel and the GEMV give one after the other (the mean square summed in another order:
// a bf16 rounding of an input may differ, nothing more), rows of h any stride apart.
TEST_CASE("inference: the GEMV's RMSNorm prologue gives the norm kernel then the GEMV", "[gpu][inference]") {
  using inference::kernels::GemvEpilogue;
  std::mt19937_64 rng(fresh_seed());
  std::uniform_real_distribution<float> u(-1, 1);
  for (const auto& config : inference::kernels::gemv_configs())
    for (const std::int64_t m : {1, 3, 8})
      for (const auto e : {GemvEpilogue::store, GemvEpilogue::swiglu}) {
        const std::int64_t n = 514, k = 2056, stride = 3 * k;  // rows of h 3k apart, as a prefill's last positions
        INFO(inference::kernels::gemv_config_name(config) << " m " << m << " epilogue " << static_cast<int>(e));
        std::vector<float> h(static_cast<std::size_t>(m * stride)), g(static_cast<std::size_t>(k));
        for (auto& v : h) v = 4 * u(rng);
        for (auto& v : g) v = 1 + 0.5f * u(rng);
        std::vector<std::uint16_t> w(static_cast<std::size_t>(n * k));
        for (auto& v : w) v = float_to_bf16(u(rng) / 32);
        gpu::DeviceBuffer dh(h.size() * 4), dg(g.size() * 4), dw(w.size() * 2), dx(static_cast<std::size_t>(m * k) * 2),
            fused(static_cast<std::size_t>(m * n) * 4), separate(static_cast<std::size_t>(m * n) * 4);
        ROOFTOP_GPU_CHECK(cudaMemcpy(dh.get(), h.data(), dh.bytes(), cudaMemcpyHostToDevice));
        ROOFTOP_GPU_CHECK(cudaMemcpy(dg.get(), g.data(), dg.bytes(), cudaMemcpyHostToDevice));
        ROOFTOP_GPU_CHECK(cudaMemcpy(dw.get(), w.data(), dw.bytes(), cudaMemcpyHostToDevice));
        inference::kernels::poison_f32(fused.as<float>(), static_cast<std::int64_t>(fused.bytes() / 4));
        inference::kernels::rms_norm(dh.as<float>(), dg.as<float>(), dx.get(), m, 3, 0, k, 1e-5f);
        inference::kernels::gemv(dx.get(), dw.get(), separate.get(), m, n, k, e, config);
        const inference::kernels::GemvNorm norm{dh.as<float>(), dg.as<float>(), 1e-5f, stride};
        inference::kernels::gemv(nullptr, dw.get(), fused.get(), m, n, k, e, config, nullptr, &norm);
        ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
        const std::size_t outs = static_cast<std::size_t>(e == GemvEpilogue::swiglu ? m * n / 2 : m * n);
        std::vector<float> a(outs), b(outs);
        if (e == GemvEpilogue::swiglu) {  // bf16 activations
          std::vector<std::uint16_t> ra(outs), rb(outs);
          ROOFTOP_GPU_CHECK(cudaMemcpy(ra.data(), fused.get(), outs * 2, cudaMemcpyDeviceToHost));
          ROOFTOP_GPU_CHECK(cudaMemcpy(rb.data(), separate.get(), outs * 2, cudaMemcpyDeviceToHost));
          for (std::size_t i = 0; i < outs; ++i) a[i] = bf16_to_float(ra[i]), b[i] = bf16_to_float(rb[i]);
        } else {
          ROOFTOP_GPU_CHECK(cudaMemcpy(a.data(), fused.get(), outs * 4, cudaMemcpyDeviceToHost));
          ROOFTOP_GPU_CHECK(cudaMemcpy(b.data(), separate.get(), outs * 4, cudaMemcpyDeviceToHost));
        }
        double worst = 0, largest = 0;
        for (std::size_t i = 0; i < outs; ++i) {
          REQUIRE(std::isfinite(a[i]));  // every output written
          worst = std::max(worst, static_cast<double>(std::fabs(a[i] - b[i])));
          largest = std::max(largest, static_cast<double>(std::fabs(b[i])));
        }
        CHECK(worst <= 1e-2 * largest);
        CHECK(largest > 0);
      }
}

// The fused step's qkv GEMV applies RoPE and writes q and the cache in its epilogue: the
// same values, bit for bit, as the GEMV storing fp32 q, k and v and the RoPE kernel after
// it (the same sums, bias, table and rounding), in a contiguous and a paged cache, head
// dims whose half is not a multiple of a block's pairs, every row count and configuration.
TEST_CASE("inference: the GEMV's RoPE epilogue writes what the GEMV then the RoPE kernel write", "[gpu][inference]") {
  using inference::kernels::GemvEpilogue;
  std::mt19937_64 rng(fresh_seed());
  std::uniform_real_distribution<float> u(-1, 1);
  struct Heads {
    std::int64_t heads, kv_heads, d;
  };
  const std::int64_t k = 264, capacity = 64, start = 37;
  for (const Heads hd : {Heads{4, 2, 64}, Heads{3, 1, 80}, Heads{5, 5, 32}, Heads{6, 2, 96}})
    for (const std::int64_t page : {0, 16})
      for (const auto& config : inference::kernels::gemv_configs())
        for (const std::int64_t m : {1, 3, 8}) {
          INFO(inference::kernels::gemv_config_name(config) << " m " << m << " heads " << hd.heads << "/" << hd.kv_heads
                                                            << " x " << hd.d << " page " << page);
          const std::int64_t n = (hd.heads + 2 * hd.kv_heads) * hd.d, half = hd.d / 2;
          std::vector<std::uint16_t> x(static_cast<std::size_t>(m * k)), w(static_cast<std::size_t>(n * k));
          for (auto& v : x) v = float_to_bf16(u(rng));
          for (auto& v : w) v = float_to_bf16(u(rng) / 8);
          std::vector<float> bias(static_cast<std::size_t>(n)), table(static_cast<std::size_t>(capacity * half * 2));
          for (auto& v : bias) v = u(rng);
          for (auto& v : table) v = u(rng);
          // A paged cache's blocks in a scrambled order, as an allocator leaves them.
          const std::int64_t pages = page ? capacity / page : 0;
          std::vector<std::int32_t> blocks(static_cast<std::size_t>(m * pages));
          for (std::size_t i = 0; i < blocks.size(); ++i) blocks[i] = static_cast<std::int32_t>((i * 7 + 3) % blocks.size());
          const std::int32_t pos = static_cast<std::int32_t>(start);
          const std::size_t cache_bytes = static_cast<std::size_t>(m * hd.kv_heads * capacity * hd.d) * 2,
                            q_bytes = static_cast<std::size_t>(m * hd.heads * hd.d) * 2;
          gpu::DeviceBuffer dx(x.size() * 2), dw(w.size() * 2), dbias(bias.size() * 4), dtable(table.size() * 4),
              dpos(4), dblocks(std::max<std::size_t>(blocks.size(), 1) * 4), qkv(static_cast<std::size_t>(m * n) * 4);
          gpu::DeviceBuffer q[2]{gpu::DeviceBuffer(q_bytes), gpu::DeviceBuffer(q_bytes)},
              kc[2]{gpu::DeviceBuffer(cache_bytes), gpu::DeviceBuffer(cache_bytes)},
              vc[2]{gpu::DeviceBuffer(cache_bytes), gpu::DeviceBuffer(cache_bytes)};
          ROOFTOP_GPU_CHECK(cudaMemcpy(dx.get(), x.data(), dx.bytes(), cudaMemcpyHostToDevice));
          ROOFTOP_GPU_CHECK(cudaMemcpy(dw.get(), w.data(), dw.bytes(), cudaMemcpyHostToDevice));
          ROOFTOP_GPU_CHECK(cudaMemcpy(dbias.get(), bias.data(), dbias.bytes(), cudaMemcpyHostToDevice));
          ROOFTOP_GPU_CHECK(cudaMemcpy(dtable.get(), table.data(), dtable.bytes(), cudaMemcpyHostToDevice));
          ROOFTOP_GPU_CHECK(cudaMemcpy(dpos.get(), &pos, 4, cudaMemcpyHostToDevice));
          if (!blocks.empty())
            ROOFTOP_GPU_CHECK(cudaMemcpy(dblocks.get(), blocks.data(), blocks.size() * 4, cudaMemcpyHostToDevice));
          for (auto* b : {&q[0], &q[1], &kc[0], &kc[1], &vc[0], &vc[1]})  // NaN: an unwritten element shows
            ROOFTOP_GPU_CHECK(cudaMemsetAsync(b->get(), 0xff, b->bytes(), gpu::stream()));
          const inference::kernels::CacheLayout cache{capacity, page, page ? dblocks.as<std::int32_t>() : nullptr};
          inference::kernels::gemv(dx.get(), dw.get(), qkv.get(), m, n, k, GemvEpilogue::store, config);
          inference::kernels::rope_and_cache(qkv.as<float>(), kc[0].get(), vc[0].get(), q[0].get(), dtable.as<float>(), m,
                                             1, dpos.as<std::int32_t>(), hd.heads, hd.kv_heads, hd.d, cache, nullptr,
                                             dbias.as<float>());
          const inference::kernels::GemvRope rope{dtable.as<float>(), dpos.as<std::int32_t>(), dbias.as<float>(), q[1].get(),
                                                  kc[1].get(), vc[1].get(), hd.heads, hd.kv_heads, hd.d, cache};
          inference::kernels::gemv(dx.get(), dw.get(), nullptr, m, n, k, GemvEpilogue::rope_cache, config, nullptr, nullptr,
                                   &rope);
          ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
          const auto host = [](const gpu::DeviceBuffer& b) {
            std::vector<std::uint16_t> out(b.bytes() / 2);
            ROOFTOP_GPU_CHECK(cudaMemcpy(out.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
            return out;
          };
          const auto q_apart = host(q[0]), q_fused = host(q[1]);
          CHECK(q_fused == q_apart);
          std::int64_t written = 0;
          for (const auto& [apart, fused] : {std::pair{host(kc[0]), host(kc[1])}, {host(vc[0]), host(vc[1])}}) {
            CHECK(fused == apart);
            for (const auto v : apart) written += v != 0xffff;
          }
          CHECK(written == 2 * m * hd.kv_heads * hd.d);  // one position's k and v a sequence, nothing else
          for (const auto v : q_fused) REQUIRE(v != 0xffff);
        }
}

TEST_CASE("inference: the GEMV matches a double-precision product in every epilogue, at odd sizes, bf16 and fp8",
          "[gpu][inference]") {
  using inference::kernels::GemvEpilogue;
  std::mt19937_64 rng(fresh_seed());
  std::uniform_real_distribution<float> u(-1, 1);
  struct Shape {
    std::int64_t m, n, k;
  };
  for (const bool fp8 : {false, true}) {
    const Dtype dtype = fp8 ? Dtype::fp8 : Dtype::bf16;
    const std::size_t element = fp8 ? 1 : 2;
    // fp8: e4m3 across its range (normal and small values), the sums of 448^2-sized
    // products scaled back near 1 by the output scale; bf16: [-1, 1).
    const inference::kernels::GemvFp8 scales{3.0e-6f, 0};
    const double out_scale = fp8 ? scales.output_scale : 1.0;
    const auto random_bytes = [&](std::size_t n) {
      std::vector<std::uint8_t> v(n * element);
      for (std::size_t i = 0; i < n; ++i)
        store_element(dtype, v.data(), i, fp8 ? 448.0 * u(rng) * (u(rng) > 0 ? 1.0 : 1.0 / 64) : u(rng));
      return v;
    };
    for (const auto& config : inference::kernels::gemv_configs())
    for (const Shape sh : {Shape{1, 2048, 2048}, Shape{3, 1001, 8}, Shape{3, 1001, 16}, Shape{8, 514, 4104},
                           Shape{8, 514, 4112}, Shape{5, 7, 16}, Shape{2, 33, 1032}, Shape{2, 33, 1040}})
      for (const auto e : {GemvEpilogue::store, GemvEpilogue::accumulate, GemvEpilogue::swiglu}) {
        const auto [m, n, k] = sh;
        if (!inference::kernels::gemv_fits(m, n, k, e, fp8)) continue;  // SwiGLU needs an even n; fp8 k % 16
        INFO(dtype_name(dtype) << " " << inference::kernels::gemv_config_name(config) << " " << m << "x" << n << "x" << k
                               << " epilogue " << static_cast<int>(e));
        const auto x = random_bytes(static_cast<std::size_t>(m * k)), w = random_bytes(static_cast<std::size_t>(n * k));
        const bool swiglu = e == GemvEpilogue::swiglu;
        const std::int64_t outs = swiglu ? m * (n / 2) : m * n;
        std::vector<float> before(static_cast<std::size_t>(outs));
        for (auto& y : before) y = e == GemvEpilogue::accumulate ? u(rng) : std::nanf("");  // poison what is overwritten
        gpu::DeviceBuffer dx(x.size()), dw(w.size()), dy(before.size() * 4);
        ROOFTOP_GPU_CHECK(cudaMemcpy(dx.get(), x.data(), dx.bytes(), cudaMemcpyHostToDevice));
        ROOFTOP_GPU_CHECK(cudaMemcpy(dw.get(), w.data(), dw.bytes(), cudaMemcpyHostToDevice));
        if (swiglu) {
          std::vector<std::uint16_t> poison(before.size(), 0x7fc0);
          ROOFTOP_GPU_CHECK(cudaMemcpy(dy.get(), poison.data(), poison.size() * 2, cudaMemcpyHostToDevice));
        } else {
          ROOFTOP_GPU_CHECK(cudaMemcpy(dy.get(), before.data(), dy.bytes(), cudaMemcpyHostToDevice));
        }
        inference::kernels::gemv(dx.get(), dw.get(), dy.get(), m, n, k, e, config, fp8 ? &scales : nullptr);
        ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
        std::vector<float> got(before.size());
        if (swiglu) {  // bf16 out (act_inverse 0)
          std::vector<std::uint16_t> raw(before.size());
          ROOFTOP_GPU_CHECK(cudaMemcpy(raw.data(), dy.get(), raw.size() * 2, cudaMemcpyDeviceToHost));
          for (std::size_t i = 0; i < raw.size(); ++i) got[i] = bf16_to_float(raw[i]);
        } else {
          ROOFTOP_GPU_CHECK(cudaMemcpy(got.data(), dy.get(), dy.bytes(), cudaMemcpyDeviceToHost));
        }
        const auto dot = [&](std::int64_t row, std::int64_t col) {
          double acc = 0, mag = 0;
          for (std::int64_t i = 0; i < k; ++i) {
            const double p = load_element(dtype, x.data(), static_cast<std::size_t>(row * k + i)) *
                             load_element(dtype, w.data(), static_cast<std::size_t>(col * k + i));
            acc += p;
            mag += std::fabs(p);
          }
          return std::pair{acc * out_scale, mag * out_scale};
        };
        double worst = 0;
        for (std::int64_t r = 0; r < m; ++r)
          for (std::int64_t c = 0; c < (swiglu ? n / 2 : n); ++c) {
            const auto i = static_cast<std::size_t>(swiglu ? r * (n / 2) + c : r * n + c);
            double want = 0, bound = 0;
            if (swiglu) {  // silu(gate) * up, rounded to bf16
              const auto [g, gm] = dot(r, c);
              const auto [up, um] = dot(r, c + n / 2);
              want = g / (1 + std::exp(-g)) * up;
              bound = 1e-5 * (gm * std::fabs(up) + um * std::fabs(g) + gm * um) + 8e-3 * std::fabs(want) + 1e-30;
            } else {
              const auto [d, mag] = dot(r, c);
              want = d + (e == GemvEpilogue::accumulate ? before[i] : 0.0);
              bound = 1e-5 * (mag + std::fabs(want)) + 1e-30;  // fp32 accumulation over k terms
            }
            const double err = std::fabs(got[i] - want);
            worst = std::isnan(err) ? INFINITY : std::max(worst, err / bound);
            if (!(err <= bound)) FAIL("row " << r << " column " << c << ": " << got[i] << ", want " << want);
          }
        CHECK(worst <= 1);
      }
  }
}

namespace {

// Two decoders of the same weights fed the same prompt, then each its own greedy tokens:
// the logits agree within `tolerance` of the largest, and the tokens wherever the first's
// top-2 gap is wider than twice that (a near tie may go either way: both go on with the
// first's token). The same kernels on the same data agree within 1e-3 (a library may sum in
// another order); kernels that sum in another order round the bf16 activations differently
// here and there, so they are held to the dtype's logit bound.
void same_generation(inference::Decoder& first, inference::Decoder& second, std::int64_t batch, std::int64_t prompt,
                     std::int64_t steps, std::uint64_t seed, double tolerance = 1e-3) {
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(batch * prompt));
  for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<std::int32_t>((seed + i * 7919) % 4096);
  std::vector<std::int32_t> a(static_cast<std::size_t>(batch)), b(a);
  first.forward(tokens, prompt, a);
  second.forward(tokens, prompt, b);
  for (std::int64_t s = 0; s <= steps; ++s) {
    INFO("step " << s);
    const std::vector<float> la = first.logits();
    const auto& lb = second.logits();
    REQUIRE(la.size() == lb.size());
    const std::size_t vocab = la.size() / static_cast<std::size_t>(batch);
    float scale = 0, diff = 0;
    for (std::size_t i = 0; i < la.size(); ++i) {
      scale = std::max(scale, std::fabs(la[i]));
      const float d = std::fabs(la[i] - lb[i]);
      if (!(d <= diff)) diff = d;  // NaN in either stays NaN and fails below
    }
    REQUIRE(diff <= tolerance * scale);
    for (std::int64_t q = 0; q < batch; ++q) {
      const float* row = la.data() + static_cast<std::size_t>(q) * vocab;
      std::vector<float> sorted(row, row + vocab);
      std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end(), std::greater<>());
      if (sorted[0] - sorted[1] > 2 * tolerance * scale) CHECK(a[static_cast<std::size_t>(q)] == b[static_cast<std::size_t>(q)]);
    }
    if (s == steps) break;
    b = a;  // both continue from the first's tokens
    first.forward(std::vector<std::int32_t>(a), 1, a);
    second.forward(std::vector<std::int32_t>(b), 1, b);
  }
}

inference::DecoderWeights test_weights_d64() {
  auto config = inference::load_model_config("tiny");
  config.heads = 4;
  config.head_dim = 64;  // the fused kernels
  return inference::random_decoder_weights(config, Dtype::bf16, fresh_seed());
}

}  // namespace

TEST_CASE("inference: a graph's replays give the eager decoder's tokens step for step", "[gpu][inference]") {
  const auto w = test_weights_d64();
  const std::int64_t batch = 3, prompt = 37, steps = 40;
  inference::CudaDecoder eager(w, batch, prompt + steps, -1, inference::Launch::eager);
  inference::CudaDecoder graph(w, batch, prompt + steps, -1, inference::Launch::graph);
  same_generation(eager, graph, batch, prompt, steps, fresh_seed());
  CHECK(graph.implementation().find("CUDA graph") != std::string::npos);
}

TEST_CASE("inference: a paged cache (pages shuffled) gives the contiguous cache's tokens, and matches the reference", "[gpu][inference]") {
  const auto w = test_weights_d64();
  const std::int64_t batch = 3, prompt = 45, steps = 40;
  for (const std::int64_t page : {16, 32}) {
    INFO("page " << page);
    inference::CudaDecoder contiguous(w, batch, prompt + steps, -1, inference::Launch::eager);
    inference::CudaDecoder paged(w, batch, prompt + steps, -1, inference::Launch::graph, page);
    same_generation(contiguous, paged, batch, prompt, steps, fresh_seed());
    CHECK(paged.implementation().find("paged") != std::string::npos);
    for (const auto& weights : {w, inference::random_decoder_weights(inference::load_model_config("tiny"), Dtype::bf16, fresh_seed())}) {
      const auto c = inference::check_decoder(weights, 2, fresh_seed(),
                                              [page](const inference::DecoderWeights& ws, std::int64_t b, std::int64_t context,
                                                     std::int64_t layers) {
                                                return std::make_unique<inference::CudaDecoder>(ws, b, context, layers,
                                                                                                inference::Launch::graph, page);
                                              });
      INFO(c.worst_element << " (" << c.tolerance << ")");
      CHECK(c.passed);
    }
  }
}

TEST_CASE("inference: a cache of 4096 positions (many splits, most of them empty) decodes as a cache of 60", "[gpu][inference]") {
  // The split count is chosen for the capacity; the keys attended come from the device, so
  // at a short length most splits walk no key.
  const auto w = test_weights_d64();
  const std::int64_t batch = 1, prompt = 20, steps = 40;
  inference::CudaDecoder few(w, batch, prompt + steps, -1, inference::Launch::eager);
  inference::CudaDecoder many(w, batch, 4096, -1, inference::Launch::graph);
  // One split against up to 64: the partials merge in another order.
  same_generation(few, many, batch, prompt, steps, fresh_seed(), inference::logit_tolerance(Dtype::bf16));
}

TEST_CASE("the card's identity and state: NVML's modes in the device record, readings for a run's conditions",
          "[gpu][conditions]") {
  const auto info = gpu::detect_gpu();
  const auto device = gpu::to_json(info);
  for (const char* key : {"pci_bus_id", "memory_bytes", "power_limit_w", "default_power_limit_w", "ecc", "mig", "persistence"})
    CHECK(device.contains(key));
  const gpu::DeviceMonitor monitor(info.pci_bus_id);
  const auto reading = gpu::read_device_state(monitor, "test");
  if (!monitor.present()) {  // no NVML: no readings, and nothing else fails
    CHECK_FALSE(reading);
    WARN("NVML absent: " << monitor.absent_reason());
    return;
  }
  REQUIRE(reading);
  CHECK(reading->sm_clock_mhz.value_or(0) > 0);
  CHECK(reading->memory_clock_mhz.value_or(0) > 0);
  CHECK(reading->temperature_c.value_or(0) > 0);
  CHECK(reading->power_w.value_or(0) > 0);
  CHECK(reading->throttle_reasons.has_value());
  CHECK(reading->compute_processes.value_or(-1) >= 0);
  CHECK(info.default_power_limit_w > 0);
  CHECK(device["driver_version"].get<std::string>() != "");
}

int main(int argc, char** argv) {
  if (const auto why = gpu::gpu_unavailable_reason(); !why.empty()) {
    std::printf("SKIP: no usable CUDA device: %s\n", why.c_str());
    return kExitNoDevice;
  }
  return Catch::Session().run(argc, argv);
}

// transformers' own tiny checkpoints through the CUDA decoder (bf16): its logits and greedy
// tokens, and each feature of a config dropped (rope scaling, biases, windows) caught. The
// fixture folders are ROOFTOP_HF_FIXTURES, ':'-separated (the bundle holds no tests/data/hf:
// give the repository's, and ../shared/fixtures/hf-tiny-llama3 where present).
TEST_CASE("inference: the CUDA decoder gives transformers' logits and greedy tokens on its checkpoints", "[gpu][inference]") {
  const char* env = std::getenv("ROOFTOP_HF_FIXTURES");
  std::vector<std::filesystem::path> roots;
  for (std::string list = env ? env : ""; !list.empty();) {
    const auto colon = list.find(':');
    roots.emplace_back(list.substr(0, colon));
    list = colon == std::string::npos ? "" : list.substr(colon + 1);
  }
  const auto fixtures = inference::transformers_fixtures(roots);
  if (fixtures.empty()) {
    WARN("ROOFTOP_HF_FIXTURES names no folder of transformers' checkpoints (tests/data/hf): not checked");
    return;
  }
  const auto make = [](const inference::DecoderWeights& w, std::int64_t context) {
    return std::make_unique<inference::CudaDecoder>(w, 1, context);
  };
  for (const auto& dir : fixtures) {
    const auto name = dir.filename().string();
    std::ifstream in(dir / "expected.json");
    const auto expected = nlohmann::json::parse(in);
    const auto config = inference::load_model_config(dir.string());
    const auto weights = inference::load_decoder_weights(config, Dtype::bf16, inference::checkpoint_files(dir.string()));
    const auto c = inference::check_against_transformers(weights, expected, make);
    INFO(fmt::format("{}: worst |logit - transformers'| {:.4g}, bound {:.4g}; {} of {} decided tokens differ", name, c.worst,
                     c.allowed, c.tokens_differ, c.tokens_compared));
    CHECK(c.worst <= c.allowed);
    CHECK(c.tokens_compared >= std::max<int>(4, static_cast<int>(expected["greedy_tokens"].size()) / 3));
    CHECK(c.tokens_differ == 0);
    for (const auto& [what, broken] : inference::without_each_feature(weights)) {
      const auto f = inference::check_against_transformers(broken, expected, make);
      INFO(fmt::format("{} {}: worst {:.4g}, bound {:.4g}; {} tokens differ", name, what, f.worst, f.allowed, f.tokens_differ));
      CHECK((f.worst > f.allowed || f.tokens_differ > 0));
    }
  }
}
