// The serve scenario's point: validated when the run is planned (the load's syntax, a
// lengths file, every request within the model's positions), so a run refuses before
// measuring anything.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/checked_count.hpp"
#include "harness/errors.hpp"
#include "suites/inference/config_alone.hpp"
#include "suites/inference/decoder_weights.hpp"
#include "suites/inference/inference_problem.hpp"
#include "suites/inference/kv_block_pool.hpp"
#include "suites/inference/serve_metrics.hpp"
#include "suites/inference/serve_point_name.hpp"

namespace rooftop::inference {

std::int64_t serve_cache_blocks(const ServeLoad& load, const std::vector<ScheduledRequest>& schedule, std::int64_t page) {
  std::int64_t largest = 0;
  double footprint = 0;
  for (const auto& r : schedule) {
    const auto blocks = blocks_for(r.prompt + r.output - 1, page);
    largest = std::max(largest, blocks);
    footprint += static_cast<double>(blocks);
  }
  const auto mean = static_cast<std::int64_t>(std::ceil(footprint / static_cast<double>(schedule.size())));
  const std::int64_t wanted = load.cache ? blocks_for(load.cache, page) : saturating_mul(load.batch, mean);
  return std::max(largest, wanted);
}

Problem make_serve_problem(const InferenceShape& s, Dtype dtype, std::string_view backend, std::span<const std::int32_t> prompt) {
  const ModelConfig m = load_model_config(s.model);
  if (!prompt.empty())
    throw InputError(fmt::format("--prompt gives a prefill or generate point its tokens; a serve point's requests have seeded "
                                 "prompts of the load's lengths: leave --prompt out for {}:serve", s.model));
  const auto schedule = serve_schedule(s.serve, m.max_positions);  // InputError: a file, a length too long
  if (s.sweep_rate) {
    // The search may serve a rate 32 times lower: its schedule, up to 32 times longer, must
    // be one a run may serve too, or the point fails hours in.
    ServeLoad lowest = s.serve;
    lowest.rate = lowest_swept_rate(s.serve.rate);
    try {
      serve_schedule(lowest, m.max_positions);
    } catch (const InputError& e) {
      throw InputError(fmt::format("--sweep-rate may serve {}:serve at {:g} requests/s (its rate halved {} times): {}", s.model,
                                   lowest.rate, kSweepRuns - 1, e.what()));
    }
  }
  validate_checkpoint(m, checkpoint_files(s.model));
  std::int64_t measured = 0;
  double prompt_tokens = 0, output_tokens = 0;
  for (const auto& r : schedule) {
    if (r.warmup) continue;
    ++measured;
    prompt_tokens += static_cast<double>(r.prompt);
    output_tokens += static_cast<double>(r.output);
  }
  const std::int64_t blocks = serve_cache_blocks(s.serve, schedule, kServePage);
  Problem p;
  p.family = "inference";
  p.backend = std::string(backend);
  p.dtype = dtype;
  p.shape = fmt::format("{}_serve_{}", m.name, serve_point_slug(s.serve));
  if (s.sweep_rate) p.shape += "_sweep";
  const auto& l = s.serve;
  p.params = {{"model", s.model}, {"scenario", "serve"}, {"load", serve_load_label(l)}, {"rate", l.rate},
              {"requests", l.requests}, {"lengths", l.lengths}, {"warmup", l.warmup_requests()}, {"window_s", l.window_s},
              {"schedule_seed", l.seed}, {"scheduled_requests", static_cast<std::int64_t>(schedule.size())},
              {"measured_requests", measured}, {"mean_prompt", prompt_tokens / static_cast<double>(measured)},
              {"mean_output", output_tokens / static_cast<double>(measured)}, {"max_batch", l.batch},
              {"token_budget", l.budget}, {"kv_cache_page", kServePage}, {"cache_blocks", blocks},
              {"slo_ttft_s", s.slo.ttft_s}, {"slo_tpot_s", s.slo.tpot_s}, {"sweep_rate", s.sweep_rate},
              {"parameters", m.parameters()}, {"layers", m.layers}, {"hidden", m.hidden},
              {"weights", checkpoint_files(s.model).empty() ? "random (seeded)" : "checkpoint " + s.model},
              // One timed iteration is one output token of the measured requests.
              {"tokens_per_iteration", 1}};
  p.work = serve_work_per_token(m, schedule, dtype);
  // In doubles: cache=2^63-1 and batch=2^62 are refused by this size, not wrapped past it.
  const double cache = static_cast<double>(blocks) * static_cast<double>(kServePage) *
                       m.kv_bytes_per_token_layer(activation_bytes(dtype)) * static_cast<double>(m.layers);
  const double rows = static_cast<double>(l.budget);
  const double activations = rows * static_cast<double>(m.qkv_width() + 2 * m.intermediate + 4 * m.hidden) * 4.0;
  const double embedding = m.tied_embeddings && dtype != Dtype::fp8 ? 0.0 : static_cast<double>(m.hidden * m.vocab);
  p.memory_bytes = m.matmul_parameters() * weight_bytes(dtype) + embedding * activation_bytes(dtype) + cache + activations +
                   static_cast<double>(l.batch) * static_cast<double>(m.vocab) * 4.0;
  if (auto note = config_alone_note(s.model, prompt); !note.empty()) p.notes.push_back(std::move(note));
  attach_shape(p, InferencePoint{s, {}});
  return p;
}

}  // namespace rooftop::inference
