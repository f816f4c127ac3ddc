#pragma once
// The inference family's points: a model and a scenario. prefill (batch B, prompt P: time
// to first token), decode (batch B at context C: time per output token, the cache growing
// by one a step) and generate (B requests, P in, G out: TTFT, inter-token latency, output
// tokens per second) and serve (requests arriving over time at a rate, served by continuous
// batching: latency percentiles, throughput, goodput at an objective). Their work (FLOPs,
// compulsory bytes) is here and nowhere else.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/problem.hpp"
#include "suites/inference/model_config.hpp"
#include "suites/inference/serve_load.hpp"

namespace rooftop::inference {

enum class Scenario { prefill, decode, generate, serve };

// Decode steps a repetition times from the shape's context (enough to average out one
// step's jitter): a decode point's cache holds context + this many positions.
inline constexpr std::int64_t kDecodeSteps = 8;
std::string_view scenario_name(Scenario scenario);

struct InferenceShape {
  std::string model;  // shipped name or config.json path
  Scenario scenario = Scenario::prefill;
  std::int64_t batch = 1;
  std::int64_t prompt = 0;   // prefill, generate: tokens in
  std::int64_t context = 0;  // decode: tokens already in the cache
  std::int64_t generate = 0;  // generate: tokens out
  // How a GPU queues a decode step: "eager" (a launch a kernel) or "graph" (one CUDA graph
  // replay); empty where it does not apply (the CPU, a prefill).
  std::string launch;
  // A GPU's KV cache: 0 contiguous, 16 or 32 paged (positions a page).
  std::int64_t page = 0;
  // A GPU's fused decode step (":fused"): each RMSNorm in the next GEMV's prologue (issue 42's
  // first step); else a kernel a norm.
  bool fused = false;
  // Tensor parallel (":tp2", ":tp4", ":tp8"): the model split over this many ranks, one
  // process each (mpirun -np TP); 1: one rank.
  int tp = 1;
  // serve: the offered load (rate, requests, lengths), the objective, and whether the run
  // searches for the highest rate that meets it (--sweep-rate).
  ServeLoad serve;
  Slo slo;
  bool sweep_rate = false;
};

// MODEL:prefill:BxP | MODEL:decode:BxC | MODEL:generate:BxPxG, then optionally :tpN
// (tensor parallel over N ranks) and on a GPU :eager or :graph (decode and generate),
// :paged16 or :paged32 and :fused, in any order;
// MODEL is a shipped name or a config.json path; or MODEL:serve:RATExN[:OPTION]...
// (serve_load.hpp). Throws InputError.
InferenceShape parse_inference_shape(std::string_view text);

// An inference point's typed shape, attached by make_inference_problem: the shape with its
// launch mode resolved (a GPU's decode and generate run "graph" unless the shape says eager),
// and run --prompt's token ids (empty: seeded random ones).
struct InferencePoint {
  InferenceShape shape;
  std::vector<std::int32_t> prompt_tokens;
};

// Where a point is planned: the run's ranks (one process each) and the memory a rank has
// (the backend's: a GPU's, or the host's shared by the ranks on it; 0: unknown).
struct RankContext {
  int ranks = 1;
  double available_bytes = 0;
};

// Bytes of one weight of the projections and LM head, and of one activation, cache or
// embedding element: fp8 weights (e4m3) work on bf16 activations and a bf16 cache.
double weight_bytes(Dtype dtype);
double activation_bytes(Dtype dtype);

// The work of the whole scenario as one sample times it: a prefill and its first token; one
// decode step at context C; a generation (its prefill and G - 1 steps).
Work inference_work(const ModelConfig& model, const InferenceShape& shape, Dtype dtype);
// The work of each stage of one forward over `tokens` new tokens a sequence at cache length
// `start` (the names the decoders time: embedding, attn_norm, qkv, rope, attention, o_proj,
// mlp_norm, gate_up, swiglu, down, final_norm, lm_head, sampling). `swiglu_in_gate_up`: the
// decoder applies SwiGLU in the gate/up projection's epilogue, one stage "gate_up" with the
// work of both and the activation written in the dtype instead of gate and up in fp32.
// `norms_in_projections`: each RMSNorm runs in the next projection's prologue (the fused
// step): attn_norm, mlp_norm and final_norm are part of qkv, gate_up and lm_head, which read
// the fp32 residual instead of the normalised activation. `rope_in_qkv`: RoPE and the cache
// write are the qkv projection's epilogue: "rope" is part of "qkv", which writes q (bf16)
// and the cache instead of fp32 q, k and v. `final_norm_in_head` (with norms_in_projections):
// the final norm in the LM head's prologue too; else it keeps its stage.
std::vector<ScenarioInstance::StageWork> stage_work(const ModelConfig& model, std::int64_t batch, std::int64_t start,
                                                    std::int64_t tokens, Dtype dtype, bool swiglu_in_gate_up = false,
                                                    bool norms_in_projections = false, bool rope_in_qkv = false,
                                                    bool final_norm_in_head = true);
// Positions one sequence of the scenario reaches: the prompt and the output, or a decode
// point's context and the steps a repetition times.
std::int64_t positions_needed(const InferenceShape& shape);
// Throws InputError when the shape does not fit the model (context beyond its positions)
// or the model's checkpoint is unusable (validate_checkpoint), so a run refuses before
// measuring any point.
// `prompt`: the prompt's token ids (run --prompt) for a prefill or generate point whose
// prompt length it matches, kept in the point (InferencePoint::prompt_tokens) and in its
// results' params.prompt_tokens; InputError otherwise.
// Tensor parallel (shape.tp > 1): InputError where tp does not split the model
// (tensor_parallel_refusal), differs from the ranks launched (how to launch it), or where a
// rank's share does not fit its memory (how much it needs and has). The point's work and
// memory are a rank's (rank 0's share).
Problem make_inference_problem(const InferenceShape& shape, Dtype dtype, std::string_view backend,
                               std::span<const std::int32_t> prompt = {}, RankContext ranks = {});
// The stages a tensor-parallel forward adds (the CPU decoder's names): each layer's
// o_proj_all_reduce and down_all_reduce, `rows` rows of the hidden state in elements of
// `element_bytes`, summed over the layers, with the all-reduce's bus factor and size (the
// collectives suite's) in their params. Empty for tp 1.
std::vector<ScenarioInstance::StageWork> all_reduce_stage_work(const ModelConfig& model, std::int64_t rows, int tp,
                                                               double element_bytes);
// What a rank keeps in its memory besides its shard: nothing (a GPU's memory holds the shard
// alone), the first kCheckLayers layers, embedding and head whole (a CPU rank with seeded
// random weights: the check's reference reads them), or the whole model (a CPU rank reading
// a checkpoint, which it slices).
enum class HostCopy { none, check_layers, whole };
// The bytes a rank of a tp-way split holds for the shape (rank 0's, the largest share): its
// weights, the embedding, its KV cache, activations and logits, and `host`'s bytes.
double rank_memory_bytes(const ModelConfig& model, const InferenceShape& shape, Dtype dtype, int tp,
                         HostCopy host = HostCopy::none);
double host_copy_bytes(const ModelConfig& model, Dtype dtype, HostCopy host);
const InferencePoint& point_of(const Problem& problem);
const InferenceShape& shape_of(const Problem& problem);

// serve (serve_problem.cpp): the point (its typed shape attached as every point's), the work of one
// output token (the measured requests' FLOPs and compulsory bytes over their output tokens).
Problem make_serve_problem(const InferenceShape& shape, Dtype dtype, std::string_view backend,
                           std::span<const std::int32_t> prompt);
// One decode step of `batch` sequences, each `context` positions into its cache (a mean:
// the cache read is linear in it): the serve point's decode-step roofline.
Work decode_step_work(const ModelConfig& model, double batch, double context, Dtype dtype);
Work serve_work_per_token(const ModelConfig& model, const std::vector<ScheduledRequest>& schedule, Dtype dtype);
// The KV cache's blocks for a serve point: the load's cache option, else room for `batch`
// requests of the schedule's mean footprint; never less than its largest request.
std::int64_t serve_cache_blocks(const ServeLoad& load, const std::vector<ScheduledRequest>& schedule, std::int64_t page);
inline constexpr std::int64_t kServePage = 16;

}  // namespace rooftop::inference
