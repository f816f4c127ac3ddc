#include "suites/inference/inference_problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include <cstdlib>

#include "devices/backend_traits.hpp"
#include "harness/checked_count.hpp"
#include "harness/errors.hpp"
#include "suites/collectives/collective.hpp"
#include "suites/inference/config_alone.hpp"
#include "suites/inference/decoder_weights.hpp"
#include "suites/inference/inference_check.hpp"
#include "suites/inference/tensor_parallel.hpp"

namespace rooftop::inference {
namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  for (std::size_t at = 0;;) {
    const auto next = text.find(sep, at);
    parts.push_back(text.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    if (next == std::string_view::npos) return parts;
    at = next + 1;
  }
}

// (query, key) pairs of causal attention for `tokens` queries at positions start .. start +
// tokens - 1, summed over the layers: a layer's sliding window W bounds each query's keys
// to W (itself and the W - 1 before it).
double attended_pairs(const ModelConfig& m, double start, double tokens) {
  const double end = start + tokens, full = tokens * start + tokens * (tokens + 1) / 2;
  double pairs = 0;
  for (std::int64_t l = 0; l < m.layers; ++l) {
    const double w = static_cast<double>(m.window(l));
    if (w <= 0 || end <= w) {
      pairs += full;
      continue;
    }
    // Queries at p < w - 1 see p + 1 keys, the others w.
    const double below = std::max(0.0, std::min(end, w - 1) - start);
    pairs += below * (start + 1) + below * (below - 1) / 2 + (tokens - below) * w;
  }
  return pairs;
}

// Earlier positions a query at `start` reads from the cache, summed over the layers.
double cached_positions_read(const ModelConfig& m, double start) {
  double read = 0;
  for (std::int64_t l = 0; l < m.layers; ++l) {
    const double w = static_cast<double>(m.window(l));
    read += w > 0 ? std::min(start, w - 1) : start;
  }
  return read;
}

// FLOPs of causal attention for `tokens` queries at positions start .. start + tokens - 1:
// QK^T and PV, 2 x 2 x D per (query head, key) pair.
double attention_flops(const ModelConfig& m, double batch, double start, double tokens) {
  return 4.0 * batch * static_cast<double>(m.heads * m.head_dim) * attended_pairs(m, start, tokens);
}

// One forward over `tokens` new tokens a sequence at cache length `start`: weights read
// once, the cache read for every earlier position and written for the new ones.
Work forward_work(const ModelConfig& m, double batch, double start, double tokens, Dtype dtype, bool logits_last_only) {
  const double we = weight_bytes(dtype), ae = activation_bytes(dtype);
  const double h = static_cast<double>(m.hidden), v = static_cast<double>(m.vocab);
  const double rows = batch * tokens, head_rows = logits_last_only ? batch : rows;
  const double body = m.matmul_parameters() - h * v;
  Work w;
  w.flops = 2.0 * body * rows + 2.0 * h * v * head_rows + attention_flops(m, batch, start, tokens);
  const double kv_layer = m.kv_bytes_per_token_layer(ae), kv = kv_layer * static_cast<double>(m.layers);
  w.bytes = m.matmul_parameters() * we + batch * cached_positions_read(m, start) * kv_layer + rows * kv +
            rows * h * ae;  // + embedding rows
  return w;
}

}  // namespace

double weight_bytes(Dtype dtype) { return static_cast<double>(input_size(dtype)); }
double activation_bytes(Dtype dtype) { return dtype == Dtype::fp8 ? 2.0 : static_cast<double>(input_size(dtype)); }

std::string_view scenario_name(Scenario s) {
  switch (s) {
    case Scenario::prefill: return "prefill";
    case Scenario::decode: return "decode";
    case Scenario::generate: return "generate";
    case Scenario::serve: return "serve";
  }
  return "?";
}

InferenceShape parse_inference_shape(std::string_view text) {
  const std::string whole(text);
  const auto usage = [&](std::string_view why) {
    return InputError(fmt::format("inference shape '{}': {}; write MODEL:prefill:BxP, MODEL:decode:BxC[:LAUNCH] or "
                                  "MODEL:generate:BxPxG[:LAUNCH] (LAUNCH: eager or graph, on a GPU), each optionally :tpN (tensor parallel), "
                                  "or MODEL:serve:RATExN[:OPTION]..., e.g. llama-3.2-1b:decode:1x512:graph", whole, why));
  };
  InferenceShape s;
  if (const auto at = text.find(":serve:"); at != std::string_view::npos) {
    s.scenario = Scenario::serve;
    s.model = std::string(text.substr(0, at));
    if (s.model.empty()) throw usage("the model is missing");
    s.serve = parse_serve_load(text.substr(at + 7));
    return s;
  }
  // Options after the sizes, each once: the launch mode, the cache's pages, tensor parallel.
  bool tp_given = false;
  for (bool found = true; found;) {
    found = false;
    if (const auto colon = text.rfind(':'); colon != std::string_view::npos && text.substr(colon + 1).starts_with("tp")) {
      const auto digits = text.substr(colon + 3);
      int tp = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), tp);
      if (ec != std::errc() || end != digits.data() + digits.size() || tp < 1 || tp > 1024)
        throw usage(fmt::format("':{}' is not a tensor-parallel size: write :tp2, :tp4 or :tp8", text.substr(colon + 1)));
      if (tp_given) throw usage("it names its tensor-parallel size twice");
      tp_given = true;
      s.tp = tp;
      text.remove_suffix(text.size() - colon);
      found = true;
      continue;
    }
    for (const char* option : {"eager", "graph", "paged16", "paged32", "fused"}) {
      const std::size_t n = std::strlen(option);
      if (text.size() <= n + 1 || !text.ends_with(option) || text[text.size() - n - 1] != ':') continue;
      if (option[0] == 'f') {
        if (s.fused) throw usage("it names ':fused' twice");
        s.fused = true;
        text.remove_suffix(n + 1);
        found = true;
        continue;
      }
      const bool launch = option[0] != 'p';
      if (launch ? !s.launch.empty() : s.page != 0)
        throw usage(fmt::format("it names its {} twice (':{}' and another)", launch ? "launch mode" : "cache", option));
      if (launch) s.launch = option;
      else s.page = option[5] == '1' ? 16 : 32;
      text.remove_suffix(n + 1);
      found = true;
    }
  }
  // A config path may hold ':' only before the scenario: split from the right.
  const auto last = text.rfind(':');
  const auto mid = last == std::string_view::npos || last == 0 ? std::string_view::npos : text.rfind(':', last - 1);
  if (mid == std::string_view::npos) throw usage("it has no scenario");
  s.model = std::string(text.substr(0, mid));
  const auto scenario = text.substr(mid + 1, last - mid - 1);
  const auto sizes = text.substr(last + 1);
  if (sizes.empty() || sizes[0] < '0' || sizes[0] > '9')
    throw usage(fmt::format("'{}' is neither sizes nor an option (eager, graph, paged16, paged32, fused)", sizes));
  const auto dims = split(sizes, 'x');
  std::vector<std::int64_t> v;
  for (auto d : dims) {
    std::int64_t x = 0;
    const auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), x);
    if (ec != std::errc() || end != d.data() + d.size() || x <= 0) throw usage(fmt::format("'{}' is not a positive count", d));
    v.push_back(x);
  }
  if (s.model.empty()) throw usage("the model is missing");
  if (scenario == "prefill" && v.size() == 2) {
    s.scenario = Scenario::prefill;
    s.batch = v[0];
    s.prompt = v[1];
  } else if (scenario == "decode" && v.size() == 2) {
    s.scenario = Scenario::decode;
    s.batch = v[0];
    s.context = v[1];
  } else if (scenario == "generate" && v.size() == 3) {
    s.scenario = Scenario::generate;
    s.batch = v[0];
    s.prompt = v[1];
    s.generate = v[2];
  } else {
    throw usage(fmt::format("'{}' with {} sizes is not a scenario", scenario, v.size()));
  }
  if (s.scenario == Scenario::prefill && !s.launch.empty())
    throw usage("a prefill is one forward: its launch mode is not an axis (decode and generate have one)");
  return s;
}

Work inference_work(const ModelConfig& m, const InferenceShape& s, Dtype dtype) {
  const double b = static_cast<double>(s.batch);
  switch (s.scenario) {
    case Scenario::prefill: return forward_work(m, b, 0, static_cast<double>(s.prompt), dtype, true);
    case Scenario::decode: return forward_work(m, b, static_cast<double>(s.context), 1, dtype, true);
    case Scenario::generate: {
      Work w = forward_work(m, b, 0, static_cast<double>(s.prompt), dtype, true);
      for (std::int64_t t = 1; t < s.generate; ++t) {
        const Work step = forward_work(m, b, static_cast<double>(s.prompt + t - 1), 1, dtype, true);
        w.flops += step.flops;
        w.bytes += step.bytes;
      }
      return w;
    }
    case Scenario::serve: return serve_work_per_token(m, serve_schedule(s.serve, m.max_positions), dtype);
  }
  return {};
}

Work decode_step_work(const ModelConfig& m, double batch, double context, Dtype dtype) {
  return forward_work(m, batch, context, 1, dtype, true);
}

Work serve_work_per_token(const ModelConfig& m, const std::vector<ScheduledRequest>& schedule, Dtype dtype) {
  // Each measured request's prefill and decode steps alone, less the weights they read: a
  // batch shares one read of the weights a step, and how many steps the run takes depends
  // on the batching. The weights once for the whole run are the compulsory part.
  const double weights = m.matmul_parameters() * weight_bytes(dtype);
  Work total;
  double tokens = 0;
  for (const auto& r : schedule) {
    if (r.warmup) continue;
    const auto add = [&](const Work& w) {
      total.flops += w.flops;
      total.bytes += w.bytes - weights;
    };
    add(forward_work(m, 1, 0, static_cast<double>(r.prompt), dtype, true));
    for (std::int64_t t = 1; t < r.output; ++t) add(forward_work(m, 1, static_cast<double>(r.prompt + t - 1), 1, dtype, true));
    tokens += static_cast<double>(r.output);
  }
  total.bytes += weights;
  return {total.flops / tokens, total.bytes / tokens};
}

std::vector<ScenarioInstance::StageWork> stage_work(const ModelConfig& m, std::int64_t batch, std::int64_t start,
                                                    std::int64_t tokens, Dtype dtype, bool swiglu_in_gate_up,
                                                    bool norms_in_projections, bool rope_in_qkv, bool final_norm_in_head) {
  const double e = activation_bytes(dtype), we = weight_bytes(dtype), f = 4.0;  // activations, weights, fp32
  const double b = static_cast<double>(batch), rows = b * static_cast<double>(tokens);
  const double h = static_cast<double>(m.hidden), q = static_cast<double>(m.heads * m.head_dim);
  const double kv = static_cast<double>(m.kv_heads * m.head_dim), w = static_cast<double>(m.qkv_width());
  const double in = static_cast<double>(m.intermediate), v = static_cast<double>(m.vocab), L = static_cast<double>(m.layers);
  // A projection: 2 FLOPs a weight a row; its weights once, its input and output (fp32).
  const auto projection = [&](double k, double n) { return Work{2 * rows * k * n * L, (k * n * we + rows * (k * e + n * f)) * L}; };
  const auto norm = [&](double r) { return Work{4 * r * h * L, (r * h * (f + e) + h * f) * L}; };
  // Summed over the layers (a sliding window bounds them).
  const double pairs = attended_pairs(m, static_cast<double>(start), static_cast<double>(tokens));
  const double keys_read = cached_positions_read(m, static_cast<double>(start)) + static_cast<double>(tokens) * L;
  const Work swiglu{4 * rows * in * L, rows * (2 * in * f + in * e) * L};
  std::vector<ScenarioInstance::StageWork> stages{
      {"embedding", {0, rows * h * (e + f)}},
      {"attn_norm", norm(rows)},
      {"qkv", projection(h, w)},
      // Rotate q and k (6 FLOPs a pair), write k and v into the cache.
      {"rope", {3 * rows * (q + kv) * L, (rows * w * f * 2 + rows * 2 * kv * e) * L}},
      // QK^T and PV over every earlier position; the cache read once, q read, the output written.
      {"attention", {4 * b * q * pairs, b * keys_read * 2 * kv * e + rows * q * (f + e) * L}},
      {"o_proj", projection(q, h)},
      {"mlp_norm", norm(rows)},
      {"gate_up", projection(h, 2 * in)},
      {"swiglu", swiglu},
      {"down", projection(in, h)},
      {"final_norm", {4 * b * h, b * h * (f + e) + h * f}},
      {"lm_head", {2 * b * h * v, h * v * we + b * (h * e + v * f)}},
      {"sampling", {b * v, b * v * f}},
  };
  const auto find = [&](std::string_view name) {
    return std::find_if(stages.begin(), stages.end(), [&](const auto& st) { return st.name == name; });
  };
  if (swiglu_in_gate_up) {
    auto& gate_up = find("gate_up")->work;
    gate_up.flops += swiglu.flops;
    gate_up.bytes += (rows * in * e - rows * 2 * in * f) * L;  // the activation out, not gate and up
    stages.erase(find("swiglu"));
  }
  if (rope_in_qkv) {
    const auto rope = find("rope");
    auto& qkv = find("qkv")->work;
    qkv.flops += rope->work.flops;
    qkv.bytes += (rows * (q + 2 * kv) * e - rows * w * f) * L;  // q and the cache written, not fp32 q, k and v
    stages.erase(rope);
  }
  if (norms_in_projections) {
    // The norm's FLOPs move into the projection, which reads h (fp32) and the norm's weight
    // instead of the normalised activation; the norm's own write and read are gone.
    for (const auto& [norm, into] : {std::pair{"attn_norm", "qkv"}, {"mlp_norm", "gate_up"}, {"final_norm", "lm_head"}}) {
      if (norm == std::string("final_norm") && !final_norm_in_head) continue;
      const auto n = find(norm);
      const double r = norm == std::string("final_norm") ? b : rows, layers = norm == std::string("final_norm") ? 1 : L;
      find(into)->work.flops += n->work.flops;
      find(into)->work.bytes += r * h * (f - e) * layers + h * f * layers;
      stages.erase(n);
    }
  }
  return stages;
}

std::int64_t positions_needed(const InferenceShape& s) {
  if (s.scenario == Scenario::serve) {
    const auto m = load_model_config(s.model);
    std::int64_t most = 0;
    for (const auto& r : serve_schedule(s.serve, m.max_positions)) most = std::max(most, r.prompt + r.output);
    return most;
  }
  // Saturated, not wrapped: a sum past int64 is more positions than any model has.
  return s.scenario == Scenario::decode ? saturating_add(s.context, kDecodeSteps) : saturating_add(s.prompt, s.generate);
}

namespace {

// Ranks of the run on this host (they share its memory): the launcher's count, else all.
int ranks_on_this_host(int ranks) {
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"})
    if (const char* text = std::getenv(v)) {
      const int n = std::atoi(text);
      if (n >= 1 && n <= ranks) return n;
    }
  return ranks;
}

// What a CPU rank keeps besides its shard (a GPU's memory holds the shard alone).
HostCopy host_copy_of(const InferenceShape& s, bool gpu) {
  if (gpu || s.tp <= 1) return HostCopy::none;
  return checkpoint_files(s.model).empty() ? HostCopy::check_layers : HostCopy::whole;
}

// The tensor-parallel refusals, before anything runs: a tp that does not split the model,
// another count of ranks than launched, a backend without it, a share that does not fit.
void check_tensor_parallel(const ModelConfig& m, const InferenceShape& s, Dtype dtype, std::string_view backend,
                           const RankContext& ranks, const std::string& shape_text) {
  if (const auto why = tensor_parallel_refusal(m, s.tp); !why.empty())
    throw InputError(fmt::format("inference shape {}: {}", shape_text, why));
  if (s.tp > 1) tp_all_reduce_knobs_from_env();  // a bad knob said before anything runs
  const bool gpu = backend_traits(backend).gpu;
  if (s.tp > 1 && backend != "cpu" && backend != "cuda")
    throw InputError(fmt::format("inference shape {}: tensor parallel runs on --backend cpu ranks (MPI) and cuda GPUs "
                                 "(NCCL) in this build, not on {}: run it with one of those, or leave :tp{} out",
                                 shape_text, backend, s.tp));
  if (s.tp != ranks.ranks)
    throw InputError(
        ranks.ranks == 1
            ? fmt::format("inference shape {} splits {} over {} ranks, one process each, and this run is one process: "
                          "launch {} of them, e.g. {}rooftop run {}--suite inference --backend {} --shape {} "
                          "(srun -n {} under Slurm)", shape_text, m.name, s.tp, s.tp,
                          backend == "cuda" ? "" : fmt::format("mpirun -np {} ", s.tp),
                          backend == "cuda" ? fmt::format("--ranks {} ", s.tp) : "", backend, shape_text, s.tp)
            : fmt::format("inference shape {} asks for tp{}, but {} ranks were launched: every rank of a run is one "
                          "tensor-parallel rank; give the shape :tp{}, or {}",
                          shape_text, s.tp, ranks.ranks, ranks.ranks,
                          s.tp == 1 ? "run it without mpirun" : fmt::format("launch mpirun -np {}", s.tp)));
  if (ranks.available_bytes <= 0) return;
  const int sharing = gpu ? 1 : ranks_on_this_host(ranks.ranks);
  const HostCopy host = host_copy_of(s, gpu);
  const double have = ranks.available_bytes / sharing, need = rank_memory_bytes(m, s, dtype, s.tp, host);
  if (need <= have) return;
  std::string way_out = "choose a smaller model, batch or context";
  if (gpu)
    for (int tp : valid_tensor_parallel_sizes(m))
      if (tp > s.tp && rank_memory_bytes(m, s, dtype, tp) <= have) {
        way_out = fmt::format("split it over more GPUs, e.g. :tp{} ({:.1f} GiB a rank), or {}", tp,
                              rank_memory_bytes(m, s, dtype, tp) / 0x1p30, way_out);
        break;
      }
  const double shard = rank_config(m, tensor_parallel_slice(m, s.tp, 0)).matmul_parameters() * weight_bytes(dtype);
  throw InputError(fmt::format("inference shape {} ({}) needs {:.1f} GiB a rank at tp{} ({:.1f} GiB of weights{}), but "
                               "a rank has {:.1f} GiB ({}): {}",
                               shape_text, dtype_name(dtype), need / 0x1p30, s.tp, shard / 0x1p30,
                               host == HostCopy::whole
                                   ? fmt::format(", and the whole checkpoint's {:.1f} GiB a CPU rank slices them from",
                                                 host_copy_bytes(m, dtype, host) / 0x1p30)
                               : host == HostCopy::check_layers
                                   ? fmt::format(", and {:.1f} GiB of the first {} layers, embedding and head for the check",
                                                 host_copy_bytes(m, dtype, host) / 0x1p30, kCheckLayers)
                                   : "",
                               have / 0x1p30,
                               gpu ? "the device's free memory"
                                   : fmt::format("the host's available memory{}", sharing > 1 ? fmt::format(" shared by {} ranks", sharing) : ""),
                               way_out));
}

}  // namespace

double host_copy_bytes(const ModelConfig& model, Dtype dtype, HostCopy host) {
  if (host == HostCopy::none) return 0;
  const double h = static_cast<double>(model.hidden), v = static_cast<double>(model.vocab);
  const double head = h * v, body = model.matmul_parameters() - head;  // the LM head, the layers' projections
  const double layers = host == HostCopy::whole ? 1.0
                                                : static_cast<double>(std::min(kCheckLayers, model.layers)) /
                                                      static_cast<double>(model.layers);
  const double embedding = model.tied_embeddings ? 0.0 : head;  // beside the untied head
  return (body * layers + head) * weight_bytes(dtype) + embedding * activation_bytes(dtype);
}

double rank_memory_bytes(const ModelConfig& model, const InferenceShape& s, Dtype dtype, int tp, HostCopy host) {
  const ModelConfig m = tp > 1 ? rank_config(model, tensor_parallel_slice(model, tp, 0)) : model;
  const std::int64_t positions = positions_needed(s);
  // Products of the shape's counts in doubles: a batch of 2^62 times 2 positions wrapped
  // int64 to a negative size, which passed the memory check.
  const double cache = static_cast<double>(s.batch) * static_cast<double>(positions) *
                       m.kv_bytes_per_token_layer(activation_bytes(dtype)) * static_cast<double>(m.layers);
  const double activations = static_cast<double>(s.batch) * static_cast<double>(std::max<std::int64_t>(s.prompt, 1)) *
                             static_cast<double>(m.qkv_width() + 2 * m.intermediate + 4 * m.hidden) * 4.0;
  // A tied embedding is the LM head, except for fp8 (an e4m3 copy) and a tensor-parallel
  // rank (its vocabulary's rows copied).
  const double embedding =
      model.tied_embeddings && dtype != Dtype::fp8 && tp == 1 ? 0.0 : static_cast<double>(model.hidden * model.vocab);
  return m.matmul_parameters() * weight_bytes(dtype) + embedding * activation_bytes(dtype) + cache + activations +
         static_cast<double>(s.batch) * static_cast<double>(m.vocab) * 4.0 + host_copy_bytes(model, dtype, host);
}

std::vector<ScenarioInstance::StageWork> all_reduce_stage_work(const ModelConfig& m, std::int64_t rows, int tp,
                                                               double element_bytes) {
  if (tp <= 1) return {};
  const double size = all_reduce_bytes(m, rows, element_bytes), layers = static_cast<double>(m.layers);
  std::vector<ScenarioInstance::StageWork> out;
  for (const char* name : {"o_proj_all_reduce", "down_all_reduce"}) {
    ScenarioInstance::StageWork st{name, {0, size * layers}};
    // The collectives suite's words for an all-reduce of `size` bytes: busbw = algbw x 2(n-1)/n.
    st.params = {{"collective", "all_reduce"}, {"size_bytes", size}, {"ranks", tp},
                 {"bus_factor", collectives::kAllReduce.bus_factor(tp)}};
    out.push_back(std::move(st));
  }
  return out;
}

Problem make_inference_problem(const InferenceShape& s, Dtype dtype, std::string_view backend,
                               std::span<const std::int32_t> prompt, RankContext ranks) {
  if (s.scenario == Scenario::serve) {
    if (ranks.ranks > 1)
      throw InputError(fmt::format("a serve point runs on one rank, and {} ranks were launched: run it without mpirun",
                                   ranks.ranks));
    return make_serve_problem(s, dtype, backend, prompt);
  }
  const ModelConfig m = load_model_config(s.model);
  if (!prompt.empty()) {
    if (s.scenario == Scenario::decode)
      throw InputError(fmt::format("--prompt gives a prefill or generate point its tokens; {}'s decode point starts from a "
                                   "cache of random keys and values: use MODEL:generate:Bx{}xG", s.model, prompt.size()));
    if (static_cast<std::int64_t>(prompt.size()) != s.prompt)
      throw InputError(fmt::format("--prompt has {} token ids but the shape's prompt is {}: give {}:{}:{}x{}{}", prompt.size(),
                                   s.prompt, s.model, scenario_name(s.scenario), s.batch, prompt.size(),
                                   s.scenario == Scenario::generate ? fmt::format("x{}", s.generate) : ""));
    for (std::size_t i = 0; i < prompt.size(); ++i)
      if (prompt[i] >= m.vocab)
        throw InputError(fmt::format("--prompt token {} (position {}) is not below {}'s vocab_size {}", prompt[i], i, m.name,
                                     m.vocab));
  }
  const std::int64_t positions = positions_needed(s);
  if (positions > m.max_positions)
    throw InputError(fmt::format(
        "{} needs {} positions{}; {} has {} (max_position_embeddings): choose a {} of at most {}", s.model,
        positions == kSaturatedCount ? "more than 2^63" : std::to_string(positions),  // the sum saturated
        s.scenario == Scenario::decode     ? fmt::format(" (context {} and the {} decode steps a repetition times)", s.context,
                                                         kDecodeSteps)
        : s.scenario == Scenario::generate ? fmt::format(" (prompt {} plus output {})", s.prompt, s.generate)
                                           : "",
        m.name, m.max_positions, s.scenario == Scenario::decode ? "context" : "prompt plus output",
        s.scenario == Scenario::decode ? m.max_positions - kDecodeSteps : m.max_positions));
  check_tensor_parallel(m, s, dtype, backend, ranks,
                        fmt::format("{}:{}:{}", s.model, scenario_name(s.scenario),
                                    s.scenario == Scenario::prefill ? fmt::format("{}x{}", s.batch, s.prompt)
                                    : s.scenario == Scenario::decode ? fmt::format("{}x{}", s.batch, s.context)
                                                                     : fmt::format("{}x{}x{}", s.batch, s.prompt, s.generate)) +
                            (s.tp > 1 ? fmt::format(":tp{}", s.tp) : ""));
  validate_checkpoint(m, checkpoint_files(s.model));  // once a process per checkpoint
  const std::string alone = config_alone_note(s.model, prompt);  // InputError with --prompt
  // A GPU's decode steps replay a CUDA graph unless the shape says eager; the CPU has no launches.
  const bool gpu = backend_traits(backend).gpu;
  if (!gpu && !s.launch.empty())
    throw InputError(fmt::format("inference shape with ':{}': the launch mode is a GPU axis; leave it out for --backend {}",
                                 s.launch, backend));
  if (!gpu && s.fused)
    throw InputError(fmt::format("inference shape with ':fused': the fused decode step is a GPU axis; leave it out for "
                                 "--backend {}", backend));
  if (!gpu && s.page)
    throw InputError(fmt::format("inference shape with ':paged{}': the paged cache is a GPU axis; leave it out for --backend {}",
                                 s.page, backend));
  const std::string launch = gpu && s.scenario != Scenario::prefill ? (s.launch.empty() ? "graph" : s.launch) : "";
  Problem p;
  p.family = "inference";
  p.backend = std::string(backend);
  p.dtype = dtype;
  switch (s.scenario) {
    case Scenario::prefill: p.shape = fmt::format("{}_prefill_b{}_p{}", m.name, s.batch, s.prompt); break;
    case Scenario::decode: p.shape = fmt::format("{}_decode_b{}_c{}", m.name, s.batch, s.context); break;
    case Scenario::generate: p.shape = fmt::format("{}_generate_b{}_p{}_g{}", m.name, s.batch, s.prompt, s.generate); break;
    case Scenario::serve: break;  // make_serve_problem
  }
  if (s.page) p.shape += fmt::format("_paged{}", s.page);
  if (!launch.empty()) p.shape += "_" + launch;
  if (s.fused) p.shape += "_fused";
  if (s.tp > 1) {
    p.seed_key = p.name();  // the same weights, prompt and cache as on one rank
    p.shape += fmt::format("_tp{}", s.tp);
  }
  p.params = {{"model", s.model}, {"scenario", scenario_name(s.scenario)}, {"batch", s.batch},
              {"prompt", s.prompt}, {"context", s.context}, {"generate", s.generate},
              {"parameters", m.parameters()}, {"layers", m.layers}, {"hidden", m.hidden},
              {"weights", checkpoint_files(s.model).empty() ? "random (seeded)" : "checkpoint " + s.model}};
  if (!alone.empty()) p.notes.push_back(alone);
  if (!launch.empty()) p.params["launch"] = launch;
  if (!prompt.empty()) p.params["prompt_tokens"] = std::vector<std::int32_t>(prompt.begin(), prompt.end());
  if (s.page) p.params["kv_cache_page"] = s.page;
  if (s.fused) p.params["step"] = "fused: each RMSNorm in the next GEMV's prologue";
  if (s.tp > 1) {
    p.params["tp"] = s.tp;
    p.params["tensor_parallel"] = "Megatron: q/k/v and gate/up by columns, o_proj and down by rows (an all-reduce each a "
                                  "layer), LM head by vocabulary; work and memory are a rank's (rank 0's)";
  }
  // The tokens one timed iteration yields (a prefill's prompt, a decode step's batch, a
  // generation's output): the harness's joules per token divide by it.
  p.params["tokens_per_iteration"] = s.scenario == Scenario::prefill  ? s.batch * s.prompt
                                     : s.scenario == Scenario::decode ? s.batch
                                                                      : s.batch * s.generate;
  InferencePoint point{s, std::vector<std::int32_t>(prompt.begin(), prompt.end())};
  point.shape.launch = launch;
  attach_shape(p, std::move(point));
  // A rank's work: its shard's (the whole model's at tp 1).
  p.work = inference_work(s.tp > 1 ? rank_config(m, tensor_parallel_slice(m, s.tp, 0)) : m, s, dtype);
  p.memory_bytes = rank_memory_bytes(m, s, dtype, s.tp, host_copy_of(s, gpu));
  return p;
}

const InferencePoint& point_of(const Problem& p) { return shape_as<InferencePoint>(p); }
const InferenceShape& shape_of(const Problem& p) { return point_of(p).shape; }

}  // namespace rooftop::inference
