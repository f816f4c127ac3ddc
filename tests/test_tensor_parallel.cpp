// Tensor parallelism's arithmetic (suites/inference/tensor_parallel.hpp): what each rank owns
// for every layout, the weight shards it slices, the shape axis and the refusals made
// before anything runs. The ranks' numbers together (tokens equal to one rank's) are the
// mpi test's (tests/mpi_inference_tp.py).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "harness/errors.hpp"
#include "harness/random_fill.hpp"
#include "suites/inference/decoder_weights.hpp"
#include "suites/inference/inference_problem.hpp"
#include "suites/inference/tensor_parallel.hpp"

using namespace rooftop;
using namespace rooftop::inference;

namespace {

ModelConfig config(std::int64_t heads, std::int64_t kv, std::int64_t intermediate, std::int64_t vocab, bool biases = false) {
  return parse_model_config(fmt::format(R"({{"hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": {},
      "num_key_value_heads": {}, "head_dim": 4, "intermediate_size": {}, "vocab_size": {}, "tie_word_embeddings": true,
      "model_type": "{}"}})", heads, kv, intermediate, vocab, biases ? "qwen2" : "llama"),
                            "m.json", "m");
}

// Every rank's ranges, in order, cover [0, total) once.
template <class Field>
void covers(const ModelConfig& m, int tp, std::int64_t total, Field field) {
  std::int64_t next = 0;
  for (int r = 0; r < tp; ++r) {
    const IndexRange range = field(tensor_parallel_slice(m, tp, r));
    CHECK(range.begin == next);
    next = range.end();
  }
  CHECK(next == total);
}

}  // namespace

TEST_CASE("tensor parallel: an even split covers the range once, the first ranks one larger", "[inference][tp]") {
  for (std::int64_t n : {1, 7, 8, 4097, 28672, 128256})
    for (int parts : {1, 2, 3, 4, 8}) {
      std::int64_t next = 0;
      for (int p = 0; p < parts; ++p) {
        const auto r = even_split(n, parts, p);
        CHECK(r.begin == next);
        CHECK((r.count == n / parts || r.count == n / parts + 1));
        next = r.end();
      }
      CHECK(next == n);
    }
  CHECK(even_split(4097, 2, 0) == IndexRange{0, 2049});
  CHECK(even_split(4097, 2, 1) == IndexRange{2049, 2048});
}

TEST_CASE("tensor parallel: each rank's q heads read only the kv heads it holds, for every GQA layout", "[inference][tp]") {
  // Llama's 4:1, Qwen's and others' 3:1, fewer kv heads than ranks, multi-head (1:1), MQA.
  for (const auto& [heads, kv] : std::vector<std::pair<int, int>>{{32, 8}, {24, 8}, {12, 4}, {8, 2}, {8, 8}, {16, 1}, {64, 8}}) {
    const auto m = config(heads, kv, 100, 1001);
    for (int tp : valid_tensor_parallel_sizes(m)) {
      INFO(fmt::format("{} heads, {} kv heads, tp {}", heads, kv, tp));
      covers(m, tp, heads, [](const TensorParallelSlice& s) { return s.q_heads; });
      covers(m, tp, 100, [](const TensorParallelSlice& s) { return s.intermediate; });
      covers(m, tp, 1001, [](const TensorParallelSlice& s) { return s.vocab; });
      const std::int64_t group = heads / kv;
      for (int r = 0; r < tp; ++r) {
        const auto s = tensor_parallel_slice(m, tp, r);
        for (auto q = s.q_heads.begin; q < s.q_heads.end(); ++q) {
          CHECK(q / group >= s.kv_heads.begin);
          CHECK(q / group < s.kv_heads.end());
        }
        // The rank's config is a GQA model of its own: its q heads a whole number of groups of its kv heads.
        const auto c = rank_config(m, s);
        CHECK(c.heads % c.kv_heads == 0);
        CHECK(c.heads / c.kv_heads * s.kv_heads.count == s.q_heads.count);
        CHECK(s.kv_replicas == (tp > kv ? tp / kv : 1));
      }
      if (tp <= kv) covers(m, tp, kv, [](const TensorParallelSlice& s) { return s.kv_heads; });
    }
  }
  // Fewer kv heads than ranks: consecutive ranks share (replicate) one.
  const auto tiny = config(8, 2, 768, 4096);
  CHECK(tensor_parallel_slice(tiny, 4, 1).kv_heads == IndexRange{0, 1});
  CHECK(tensor_parallel_slice(tiny, 4, 2).kv_heads == IndexRange{1, 1});
  CHECK(tensor_parallel_slice(tiny, 8, 7).kv_heads == IndexRange{1, 1});
  CHECK(tensor_parallel_slice(tiny, 8, 7).kv_replicas == 4);
}

TEST_CASE("tensor parallel: a tp that cannot split the heads is refused naming the ones that can", "[inference][tp]") {
  const auto ratio3 = config(12, 4, 100, 1000);
  CHECK(valid_tensor_parallel_sizes(ratio3) == std::vector<int>{1, 2, 4, 12});
  CHECK(tensor_parallel_refusal(ratio3, 8) == "tp 8 does not divide m's 12 attention heads: choose tp 1, 2, 4, 12");
  CHECK_THAT(tensor_parallel_refusal(ratio3, 6),
             Catch::Contains("tp 6 neither divides m's 4 key-value heads nor is a multiple of them") &&
                 Catch::Contains("choose tp 1, 2, 4, 12"));
  CHECK_THROWS_AS(tensor_parallel_slice(ratio3, 3, 0), InputError);
  CHECK(tensor_parallel_refusal(load_model_config("llama-3.1-70b"), 8).empty());
}

TEST_CASE("tensor parallel: the shards' slices are the whole model's rows and columns", "[inference][tp]") {
  // GQA 3:1, intermediate and vocab not divisible by tp, biases on q/k/v (Qwen2).
  const auto m = config(6, 2, 50, 101, true);
  const auto full = random_decoder_weights(m, Dtype::fp32, 11);
  const auto f32 = [](const std::vector<std::uint8_t>& b, std::size_t i) { return reinterpret_cast<const float*>(b.data())[i]; };
  const std::int64_t h = m.hidden, d = m.head_dim, q_width = m.heads * d;
  for (int tp : {2, 6}) {  // tp 3 would straddle kv heads (refused)
    std::vector<double> x(static_cast<std::size_t>(q_width)), o_sum(static_cast<std::size_t>(h), 0.0);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = uniform_at(5, i, -1, 1);
    for (int r = 0; r < tp; ++r) {
      INFO(fmt::format("tp {} rank {}", tp, r));
      const auto s = tensor_parallel_slice(m, tp, r);
      const auto w = shard_decoder_weights(full, s);
      const auto& L = w.layers[1];
      const auto& F = full.layers[1];
      REQUIRE(w.config.qkv_width() * h * 4 == static_cast<std::int64_t>(L.qkv.size()));
      // q rows of its heads, then k and v rows of its kv heads.
      const auto qkv_row = [&](std::int64_t local) {
        const std::int64_t q = s.q_heads.count * d, kv = s.kv_heads.count * d;
        if (local < q) return s.q_heads.begin * d + local;
        if (local < q + kv) return q_width + s.kv_heads.begin * d + (local - q);
        return q_width + m.kv_heads * d + s.kv_heads.begin * d + (local - q - kv);
      };
      for (std::int64_t row = 0; row < w.config.qkv_width(); ++row) {
        CHECK(f32(L.qkv, static_cast<std::size_t>(row * h + 7)) == f32(F.qkv, static_cast<std::size_t>(qkv_row(row) * h + 7)));
        CHECK(L.qkv_bias[static_cast<std::size_t>(row)] == F.qkv_bias[static_cast<std::size_t>(qkv_row(row))]);
      }
      // gate and up rows of its intermediate range; down's columns of it.
      for (std::int64_t i = 0; i < s.intermediate.count; ++i) {
        const auto g = s.intermediate.begin + i;
        CHECK(f32(L.gate_up, static_cast<std::size_t>(i * h + 3)) == f32(F.gate_up, static_cast<std::size_t>(g * h + 3)));
        CHECK(f32(L.gate_up, static_cast<std::size_t>((s.intermediate.count + i) * h + 3)) ==
              f32(F.gate_up, static_cast<std::size_t>((m.intermediate + g) * h + 3)));
        CHECK(f32(L.down, static_cast<std::size_t>(5 * s.intermediate.count + i)) ==
              f32(F.down, static_cast<std::size_t>(5 * m.intermediate + g)));
      }
      // The LM head: the (tied) embedding's rows of its vocabulary.
      REQUIRE(static_cast<std::int64_t>(w.lm_head.size()) == s.vocab.count * h * 4);
      CHECK(f32(w.lm_head, 2) == f32(full.embedding, static_cast<std::size_t>(s.vocab.begin * h + 2)));
      CHECK(w.embedding == full.embedding);
      CHECK(L.o_bias == F.o_bias);
      // o_proj by rows: the ranks' partial products over their heads sum to the whole product.
      for (std::int64_t out = 0; out < h; ++out)
        for (std::int64_t c = 0; c < s.q_heads.count * d; ++c)
          o_sum[static_cast<std::size_t>(out)] += f32(L.o, static_cast<std::size_t>(out * s.q_heads.count * d + c)) *
                                                  x[static_cast<std::size_t>(s.q_heads.begin * d + c)];
    }
    for (std::int64_t out = 0; out < h; ++out) {
      double whole = 0;
      for (std::int64_t c = 0; c < q_width; ++c)
        whole += f32(full.layers[1].o, static_cast<std::size_t>(out * q_width + c)) * x[static_cast<std::size_t>(c)];
      CHECK(o_sum[static_cast<std::size_t>(out)] == Approx(whole).margin(1e-9));
    }
  }
}

TEST_CASE("tensor parallel: a rank's random shard drawn alone is the whole model's sliced", "[inference][tp]") {
  // Tied and untied heads, q/k/v biases (Qwen2), GQA 3:1 and fewer kv heads than ranks, uneven splits.
  for (const bool biases : {false, true})
    for (const auto& [heads, kv] : std::vector<std::pair<int, int>>{{6, 2}, {8, 2}})
      for (const Dtype dtype : {Dtype::fp32, Dtype::bf16}) {
        auto m = config(heads, kv, 50, 101, biases);
        m.tied_embeddings = !biases;
        const auto full = random_decoder_weights(m, dtype, 21);
        for (int tp : valid_tensor_parallel_sizes(m))
          for (int r = 0; r < tp && tp > 1; ++r) {
            INFO(fmt::format("{} heads, {} kv, tp {} rank {}, {}, biases {}", heads, kv, tp, r, dtype_name(dtype), biases));
            const auto s = tensor_parallel_slice(m, tp, r);
            const auto sliced = shard_decoder_weights(full, s);
            const auto drawn = random_shard_weights(m, dtype, 21, s);
            CHECK(drawn.embedding == sliced.embedding);
            CHECK(drawn.lm_head == sliced.lm_head);
            REQUIRE(drawn.layers.size() == sliced.layers.size());
            for (std::size_t l = 0; l < drawn.layers.size(); ++l) {
              const auto& a = drawn.layers[l];
              const auto& b = sliced.layers[l];
              CHECK(a.qkv == b.qkv);
              CHECK(a.o == b.o);
              CHECK(a.gate_up == b.gate_up);
              CHECK(a.down == b.down);
              CHECK(a.qkv_bias == b.qkv_bias);
              CHECK(a.o_bias == b.o_bias);
            }
            CHECK(drawn.config.heads == sliced.config.heads);
            CHECK(drawn.config.vocab == s.vocab.count);
            REQUIRE(drawn.shard);
            CHECK(drawn.shard->model.vocab == 101);
            CHECK(drawn.shard->slice.rank == r);
          }
      }
}

TEST_CASE("tensor parallel: the :tpN axis, its point and its refusals", "[inference][tp]") {
  const auto s = parse_inference_shape("tiny:decode:1x128:tp2");
  CHECK(s.tp == 2);
  CHECK(s.context == 128);
  CHECK(parse_inference_shape("tiny:generate:1x8x4").tp == 1);
  CHECK_THROWS_WITH(parse_inference_shape("tiny:decode:1x8:tp2:tp4"), Catch::Contains("tensor-parallel size twice"));
  CHECK_THROWS_WITH(parse_inference_shape("tiny:decode:1x8:tp0"), Catch::Contains("':tp0' is not a tensor-parallel size"));

  const auto p = make_inference_problem(s, Dtype::bf16, "cpu", {}, RankContext{2, 0});
  CHECK(p.name() == "inference/cpu/bf16/tiny_decode_b1_c128_tp2");
  CHECK(p.seed_key == "inference/cpu/bf16/tiny_decode_b1_c128");  // the weights of the tp1 point
  CHECK(p.params["tp"] == 2);
  // A rank's work: about half the model's weights read.
  const auto whole = make_inference_problem(parse_inference_shape("tiny:decode:1x128"), Dtype::bf16, "cpu");
  CHECK(p.work.bytes < 0.6 * whole.work.bytes);
  CHECK(p.work.bytes > 0.4 * whole.work.bytes);

  CHECK_THROWS_WITH(make_inference_problem(s, Dtype::bf16, "cpu", {}, RankContext{1, 0}),
                    Catch::Contains("launch 2 of them, e.g. mpirun -np 2 rooftop run"));
  CHECK_THROWS_WITH(make_inference_problem(s, Dtype::bf16, "cpu", {}, RankContext{4, 0}),
                    Catch::Contains("asks for tp2, but 4 ranks were launched"));
  CHECK_THROWS_WITH(make_inference_problem(parse_inference_shape("tiny:decode:1x128:tp3"), Dtype::bf16, "cpu", {},
                                           RankContext{3, 0}),
                    Catch::Contains("tp 3 does not divide tiny's 8 attention heads: choose tp 1, 2, 4, 8"));
}

TEST_CASE("tensor parallel: a model that does not fit a rank is refused with what it needs and has", "[inference][tp]") {
  const auto seventy = load_model_config("llama-3.1-70b");
  CHECK(seventy.parameters() == Approx(70.55e9).epsilon(2e-3));
  const auto shape = parse_inference_shape("llama-3.1-70b:decode:1x128:tp2");
  // A rank's share at tp2: half the projections and LM head, the embedding whole.
  const double tp2 = rank_memory_bytes(seventy, shape, Dtype::bf16, 2);
  const double half = (seventy.matmul_parameters() / 2 + 8192.0 * 128256) * 2;
  CHECK(tp2 == Approx(half).epsilon(0.01));
  CHECK_THROWS_WITH(make_inference_problem(shape, Dtype::bf16, "cpu", {}, RankContext{2, 64.0 * 0x1p30}),
                    Catch::Contains("needs ") && Catch::Contains("GiB a rank at tp2") &&
                        Catch::Contains("a rank has 32.0 GiB (the host's available memory shared by 2 ranks)"));
  // A CPU rank of seeded random weights keeps its shard and the check's first 2 layers, not the whole model.
  const double check = host_copy_bytes(seventy, Dtype::bf16, HostCopy::check_layers);
  CHECK(check == Approx((seventy.matmul_parameters() - 8192.0 * 128256) / 40 * 2 + 2 * 8192.0 * 128256 * 2).epsilon(1e-9));
  CHECK(rank_memory_bytes(seventy, shape, Dtype::bf16, 2, HostCopy::check_layers) == Approx(tp2 + check));
  // One 80 GB GPU: it names the split that fits.
  CHECK_THROWS_WITH(make_inference_problem(parse_inference_shape("llama-3.1-70b:decode:1x128"), Dtype::bf16, "cuda", {},
                                           RankContext{1, 79.0 * 0x1p30}),
                    Catch::Contains("needs 131.") && Catch::Contains("split it over more GPUs, e.g. :tp2"));
}

TEST_CASE("tensor parallel: each layer's all-reduces are stages with the collectives' bus factor", "[inference][tp]") {
  const auto tiny = load_model_config("tiny");
  CHECK(all_reduce_stage_work(tiny, 1, 1, 4).empty());
  const auto stages = all_reduce_stage_work(tiny, 2, 4, 4);
  REQUIRE(stages.size() == 2);
  CHECK(stages[0].name == "o_proj_all_reduce");
  CHECK(stages[1].name == "down_all_reduce");
  CHECK(stages[0].work.bytes == 2.0 * 256 * 4 * 2);  // rows x hidden x fp32, over 2 layers
  CHECK(stages[0].work.flops == 0);
  CHECK(stages[0].params["bus_factor"].get<double>() == Approx(1.5));  // 2 (n - 1) / n
  CHECK(stages[0].params["size_bytes"].get<double>() == 2.0 * 256 * 4);
  CHECK(stages[0].params["collective"] == "all_reduce");
}

TEST_CASE("tensor parallel: the GPU all-reduce's knobs take their documented values and refuse others by name",
          "[inference][tp]") {
  const auto defaults = tp_all_reduce_knobs(nullptr, "");
  CHECK(defaults.algorithm == "auto");
  CHECK(defaults.prefetch_mib == 4);
  const auto given = tp_all_reduce_knobs("peer", "0.5");
  CHECK(given.algorithm == "peer");
  CHECK(given.prefetch_mib == 0.5);
  CHECK(tp_all_reduce_knobs("nccl", "0").prefetch_mib == 0);
  for (const char* bad : {"NCCL", "one-shot", " peer"})
    CHECK_THROWS_WITH(tp_all_reduce_knobs(bad, nullptr),
                      Catch::Contains("ROOFTOP_TP_ALL_REDUCE='") && Catch::Contains("auto") && Catch::Contains("peer"));
  for (const char* bad : {"4MiB", "-1", "nan", "2000", "x"})
    CHECK_THROWS_WITH(tp_all_reduce_knobs(nullptr, bad),
                      Catch::Contains("ROOFTOP_TP_PREFETCH_MB='") && Catch::Contains("0 to 1024"));
}
