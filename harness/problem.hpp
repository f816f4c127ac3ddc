#pragma once
// The data model every suite shares: a Problem (one point of a sweep) declares its Work;
// an Instance is that problem set up on a backend, checked and run. A suite is a Family
// (harness/family.hpp).
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/dtype.hpp"
#include "harness/work.hpp"

namespace rooftop {

class StageRecorder;  // harness/stage_trace.hpp

// A suite's typed shape of its point (GEMM's sizes, a collective and its message size), attached
// when the suite makes the point (attach_shape) and read back by its implementations
// (shape_as): the suite never reads its own parameters back from `params`.
class PointShape {
 public:
  virtual ~PointShape() = default;
};
template <class Shape>
class SuiteShape final : public PointShape {
 public:
  explicit SuiteShape(Shape shape) : value(std::move(shape)) {}
  const Shape value;
};

struct Problem {
  std::string family;   // "gemm"
  std::string backend;  // "cpu"
  Dtype dtype = Dtype::fp32;
  std::string shape;    // name-safe shape label, e.g. "m2048_n2048_k2048"
  // The suite's shape and layout parameters, as the results file shows them, written by the
  // suite when it makes the point and read by key only in the results module; what the harness
  // learns measuring the point is kept beside it (ResultRecord::measured).
  nlohmann::ordered_json params;
  Work work;
  double memory_bytes = 0;  // what an instance allocates, checked before any allocation
  // The suite's shape typed (shape_as); null on a point read back from a results file.
  std::shared_ptr<const PointShape> typed_shape = nullptr;
  // A tunable point's tile as the runner chose it (rooftop tune's choice, or a candidate while
  // tuning), run in place of the shape's own; empty: the shape's. `tile_source` says where the
  // choice came from ("tuned 2026-11-24T14:50:00Z", "default (...)"); the results module writes
  // both into the results' params ("tile", "tile_source").
  std::string tile{}, tile_source{};
  // The name its inputs' seed is derived from (empty: name()): points that must draw the same
  // inputs share one (an inference model split over tp ranks and the same on one rank).
  std::string seed_key{};
  // What the suite tells the user of the point before it is measured ("...: the config alone,
  // on seeded random weights"), said once a run by the process that writes the results; not
  // kept in the results.
  std::vector<std::string> notes{};

  // "gemm/cpu/bf16/m2048_n2048_k2048": the benchmark name and the key of baselines.
  std::string name() const { return family + "/" + backend + "/" + std::string(dtype_name(dtype)) + "/" + shape; }
};

template <class Shape>
void attach_shape(Problem& problem, Shape shape) {
  problem.typed_shape = std::make_shared<const SuiteShape<Shape>>(std::move(shape));
}
// The point's typed shape; std::logic_error naming the point where it has none of this type (a
// point read back from a file, or another suite's).
template <class Shape>
const Shape& shape_as(const Problem& problem) {
  const auto* typed = dynamic_cast<const SuiteShape<Shape>*>(problem.typed_shape.get());
  if (!typed) throw std::logic_error(problem.name() + ": the point carries no typed shape of its suite (attach_shape)");
  return typed->value;
}

struct Correctness {
  bool passed = false;
  std::uint64_t elements_checked = 0;
  std::uint64_t elements_total = 0;
  double max_abs_error = 0;
  double max_error_ratio = 0;  // max over checked elements of |out - ref| / allowed; <= 1 passes
  std::string tolerance;       // the allowed error, as a formula
  std::string worst_element;   // where max_error_ratio was found, with both values
};

// One problem, set up on a backend with seeded random inputs.
class Instance {
 public:
  virtual ~Instance() = default;
  virtual std::string implementation() const = 0;  // e.g. oneDNN's "brg:avx512_core_amx"
  // A few words for the terminal table ("wgm192n128w12s2", "cuBLASLt algo 43"); the
  // results keep implementation() whole. Where the shape's name ends with the label (an
  // attention point's "_fused"), the table shows it once, in the implementation column.
  virtual std::string implementation_label() const { return implementation(); }
  // Why a generic (slow) path ran instead of the fast one for this point ("no fast decode
  // kernel for head dim 80"); empty when the fast path ran. A point far below its roof on
  // such a path measures rooftop's fallback, not the machine: the results flag it.
  virtual std::string generic_path() const { return {}; }
  // Poisons the output, runs once and compares with the family's reference.
  virtual Correctness check() = 0;
  // One timed iteration; returns when its results are complete.
  virtual void run() = 0;
};

// An instance whose iterations run in lockstep on every rank of a run (a collective): its
// time is the slowest rank's, so the family times it, not Google Benchmark.
class LockstepInstance : public Instance {
 public:
  // `iterations` iterations queued back to back on every rank after a barrier, then one
  // wait: this process's seconds per iteration.
  virtual double time_iterations(std::int64_t iterations) = 0;
};

// One repetition of a scenario: its sample, and the scenario's own measures of that
// repetition (a generation's time to first token, its tokens per second).
struct ScenarioRepetition {
  double seconds_per_iteration = 0;
  std::int64_t iterations = 1;
  std::vector<std::pair<std::string, double>> metrics;  // name (with its unit: "ttft_s"), value
};

// An instance of a scenario family (end-to-end inference): a repetition runs the whole
// scripted sequence, timed by the instance itself (a prefill, decode steps, a generation).
class ScenarioInstance : public Instance {
 public:
  virtual ScenarioRepetition run_repetition() = 0;
  // A stage of the scenario (a projection, the attention) and its work in one forward.
  struct StageWork {
    std::string name;
    Work work;
    // The stage record's parameters: empty, or a collective's own words where the stage is
    // one (a tensor-parallel all-reduce: collective, size_bytes, ranks, bus_factor), which
    // draw it as the collectives suite's points are, against the run's link.
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
  };
  // One more run of the scenario with every stage timed into `recorder` (a profiling pass:
  // no sample); returns each stage's work a forward, or nothing where the instance has no
  // stages.
  virtual std::vector<StageWork> profile(StageRecorder& recorder) {
    (void)recorder;
    return {};
  }
  // One more, untimed run that returns what the scenario computed, kept in the results'
  // "outputs" (docs/results.md); null where it computes nothing worth keeping.
  virtual nlohmann::ordered_json outputs() { return nullptr; }
};


}  // namespace rooftop
