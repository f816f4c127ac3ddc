#pragma once
// Our decoders against transformers' own tiny checkpoints (../shared/fixtures/hf-tiny-llama3:
// a prompt, transformers' greedy tokens and last logits): shared by the unit tests (CPU)
// and the GPU tests (CUDA).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
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
// position's logits against transformers' (which make_fixtures.py computed from rotary
// frequencies rounded to bf16: that alone moves them 0.04, 1.2% of the largest, inside the
// bf16 bound), then transformers' greedy tokens fed one by one (teacher forcing), our argmax
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

}  // namespace rooftop::inference
