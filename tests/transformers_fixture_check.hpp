#pragma once
// Our decoders against transformers' own tiny checkpoints (tests/data/hf, made by
// tests/fixtures/make_hf_fixtures.py, and ../shared/fixtures/hf-tiny-llama3 where present: a
// prompt, transformers' greedy tokens and last logits): shared by the unit tests (CPU) and
// the GPU tests (CUDA).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "suites/inference/decoder.hpp"
#include "suites/inference/inference_check.hpp"

namespace rooftop::inference {

using FixtureDecoderFactory = std::function<std::unique_ptr<Decoder>(const DecoderWeights& weights, std::int64_t context)>;

struct FixtureCheck {
  double worst = 0, allowed = 0;  // |our last logit - transformers'|, and the bf16 bound
  int tokens_compared = 0, tokens_differ = 0;
};

// transformers' prompt through one of our decoders (batch 1, made by `make`): the last
// position's logits against transformers' (computed in fp32 from the saved bf16 weights),
// then transformers' greedy tokens fed one by one (teacher forcing), our argmax
// against its next token wherever our top-2 gap is wider than twice the bound (a near tie
// may go either way in another precision).
inline FixtureCheck check_against_transformers(const DecoderWeights& weights, const nlohmann::json& expected,
                                              const FixtureDecoderFactory& make) {
  const auto prompt = expected["prompt"].get<std::vector<std::int32_t>>();
  const auto want = expected["last_logits"].get<std::vector<double>>();
  const auto greedy = expected["greedy_tokens"].get<std::vector<std::int32_t>>();
  const auto vocab = static_cast<std::size_t>(weights.config.vocab);
  FixtureCheck out;
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::fabs(w));
  out.allowed = logit_tolerance(Dtype::bf16) * scale;
  const auto made = make(weights, static_cast<std::int64_t>(prompt.size() + greedy.size()));
  Decoder& decoder = *made;
  std::vector<std::int32_t> next(1);
  decoder.forward(prompt, static_cast<std::int64_t>(prompt.size()), next);
  for (std::size_t v = 0; v < vocab; ++v) out.worst = std::max(out.worst, std::fabs(decoder.logits()[v] - want[v]));
  for (std::size_t t = 0; t < greedy.size(); ++t) {
    const auto& l = decoder.logits();
    std::vector<float> sorted(l.begin(), l.begin() + static_cast<std::ptrdiff_t>(vocab));
    std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end(), std::greater<>());
    if (sorted[0] - sorted[1] > 2 * out.allowed) {
      ++out.tokens_compared;
      out.tokens_differ += next[0] != greedy[t];
    }
    decoder.forward(std::vector<std::int32_t>{greedy[t]}, 1, next);
  }
  return out;
}

// Every checkpoint folder (one holding expected.json) under each root, sorted by name.
inline std::vector<std::filesystem::path> transformers_fixtures(const std::vector<std::filesystem::path>& roots) {
  std::vector<std::filesystem::path> out;
  for (const auto& root : roots) {
    if (root.empty() || !std::filesystem::is_directory(root)) continue;
    for (const auto& e : std::filesystem::directory_iterator(root))
      if (std::filesystem::is_regular_file(e.path() / "expected.json")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.filename() < b.filename(); });
  return out;
}

// The checkpoint with one feature of its config dropped at a time (its rope scaling, its
// biases, its sliding windows): each must lose transformers' logits or tokens, or the fixture
// does not test that feature. (Dynamic rope scaling equals none inside the context.)
inline std::vector<std::pair<std::string, DecoderWeights>> without_each_feature(const DecoderWeights& w) {
  std::vector<std::pair<std::string, DecoderWeights>> out;
  if (w.config.rope_scaling.type != "default" && w.config.rope_scaling.type != "dynamic") {
    auto v = w;
    v.config.rope_scaling = RopeScaling{};
    out.emplace_back("without its rope scaling", std::move(v));
  }
  if (w.config.has_biases()) {
    auto v = w;
    v.config.qkv_bias = v.config.o_bias = v.config.mlp_bias = false;
    for (auto& l : v.layers) l.qkv_bias.clear(), l.o_bias.clear(), l.gate_up_bias.clear(), l.down_bias.clear();
    out.emplace_back("without its biases", std::move(v));
  }
  if (!w.config.layer_window.empty()) {
    auto v = w;
    v.config.layer_window.clear();
    out.emplace_back("without its sliding window", std::move(v));
  }
  return out;
}

}  // namespace rooftop::inference
