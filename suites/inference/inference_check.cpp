#include "suites/inference/inference_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/dtype_facts.hpp"
#include "harness/random_fill.hpp"
#include "suites/inference/cpu_decoder.hpp"
#include "suites/inference/reference_decoder.hpp"

namespace rooftop::inference {
namespace {

constexpr std::int64_t kPrompt = 8, kSliceLayers = kCheckLayers;

}  // namespace

double logit_tolerance(Dtype dtype) {
  // Matmul inputs, the cache and the attention output are rounded to the dtype at every
  // layer; the errors of a few roundings add up before the LM head. fp8's reference
  // quantises as the GPU does (reference_decoder.hpp), but from the second layer on its
  // activations differ from the GPU's by bf16 roundings (the cache, q, the residual), and
  // those move a few percent of the inputs across an e4m3 rounding boundary: a step of up
  // to 2^-3 of the value each. Measured on the H100 (8B slice): 6.8% of the largest logit;
  // the bound is one such step of it.
  if (dtype == Dtype::fp8) return 0.125;
  // bf16 and fp16: where no token dominates (transformers' random init, initializer_range
  // 0.08), the largest logit is only ~3 sigma of them all, and ~10 roundings of the slice
  // move every logit by ~3u sigma: the worst of 4608 logits was 3.1u of the largest on
  // average, 4.6u at most (75 runs, Zen 4). 8u keeps that tail off the bound; a wrong
  // kernel is off by O(1) of the largest logit.
  return dtype == Dtype::fp32 ? 1e-5 : 8 * unit_roundoff(dtype);
}

Correctness check_cpu_decoder(const DecoderWeights& w, std::int64_t batch, std::uint64_t seed) {
  return check_decoder(w, batch, seed, [](const DecoderWeights& weights, std::int64_t b, std::int64_t context, std::int64_t layers) {
    return std::make_unique<CpuDecoder>(weights, b, context, layers);
  });
}

Correctness check_decoder(const DecoderWeights& w, std::int64_t batch, std::uint64_t seed, const DecoderFactory& make) {
  const auto& c = w.config;
  // The reference recomputes every position in double precision: a large vocabulary or
  // width gets one sequence and two greedy steps, a small model two sequences and eight.
  const bool large = static_cast<double>(c.hidden) * static_cast<double>(c.vocab + 4 * c.intermediate) > 2e7;
  const std::int64_t sequences = std::min<std::int64_t>(batch, large ? 1 : 2), kSteps = large ? 2 : 8;
  const std::int64_t layers = std::min<std::int64_t>(static_cast<std::int64_t>(w.layers.size()), kSliceLayers);
  const auto made = make(w, sequences, kPrompt + kSteps, layers);
  Decoder& decoder = *made;
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(sequences * kPrompt)), next(static_cast<std::size_t>(sequences));
  for (std::size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = static_cast<std::int32_t>(uniform_at(seed, i, 0, static_cast<double>(c.vocab)));
  std::vector<std::vector<std::int32_t>> history(static_cast<std::size_t>(sequences));
  for (std::int64_t b = 0; b < sequences; ++b)
    history[static_cast<std::size_t>(b)].assign(tokens.begin() + b * kPrompt, tokens.begin() + (b + 1) * kPrompt);

  Correctness out;
  const double tol = logit_tolerance(w.dtype);
  out.tolerance = fmt::format("|logit - ref| <= {:.3g} x max|ref logit| ({} layer{} of {}, final norm, LM head); "
                              "greedy tokens equal where the top-2 gap > that bound",
                              tol, layers, layers == 1 ? "" : "s", c.layers);
  out.passed = true;
  std::vector<std::int32_t> step_tokens = tokens;
  std::int64_t per_seq = kPrompt;
  for (std::int64_t step = 0; step <= kSteps && out.passed; ++step) {
    decoder.poison_logits();  // a logit the forward does not write stays NaN and fails
    decoder.forward(step_tokens, per_seq, next);
    for (std::int64_t b = 0; b < sequences && out.passed; ++b) {
      const auto ref = reference_logits(w, history[static_cast<std::size_t>(b)], layers);
      double scale = 0;
      for (double r : ref) scale = std::max(scale, std::fabs(r));
      const double allowed = tol * scale;
      const float* got = decoder.logits().data() + b * c.vocab;
      std::int64_t best = 0, second = -1;
      for (std::int64_t v = 0; v < c.vocab; ++v) {
        const double err = std::fabs(static_cast<double>(got[v]) - ref[static_cast<std::size_t>(v)]);
        const double ratio = std::isnan(err) ? std::numeric_limits<double>::infinity() : err / allowed;
        ++out.elements_checked;
        if (ratio > out.max_error_ratio || std::isnan(err)) {
          out.max_error_ratio = ratio;
          out.max_abs_error = err;
          out.worst_element = fmt::format("step {}, sequence {}, logit {}: {:.6g}, reference {:.6g}", step, b, v, got[v],
                                          ref[static_cast<std::size_t>(v)]);
        }
        if (ref[static_cast<std::size_t>(v)] > ref[static_cast<std::size_t>(best)]) {
          second = best;
          best = v;
        } else if (v != best && (second < 0 || ref[static_cast<std::size_t>(v)] > ref[static_cast<std::size_t>(second)])) {
          second = v;
        }
      }
      out.elements_total += static_cast<std::uint64_t>(c.vocab);
      if (out.max_error_ratio > 1) out.passed = false;
      const bool decided = second < 0 || ref[static_cast<std::size_t>(best)] - ref[static_cast<std::size_t>(second)] > 2 * allowed;
      if (out.passed && decided && next[static_cast<std::size_t>(b)] != best) {
        out.passed = false;
        out.max_error_ratio = std::numeric_limits<double>::infinity();
        out.worst_element = fmt::format("step {}, sequence {}: greedy token {}, reference {} (top-2 gap {:.3g}, bound {:.3g})",
                                        step, b, next[static_cast<std::size_t>(b)], best,
                                        ref[static_cast<std::size_t>(best)] - ref[static_cast<std::size_t>(second)], allowed);
      }
      // Both continue from the decoder's token, so one undecided step does not end the check.
      history[static_cast<std::size_t>(b)].push_back(next[static_cast<std::size_t>(b)]);
    }
    step_tokens = next;
    per_seq = 1;
  }
  return out;
}

}  // namespace rooftop::inference
