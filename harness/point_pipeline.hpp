#pragma once
// One path for every point, whatever its measurement kind: a point is started (progress
// line), its memory checked, set up and checked against the reference, measured by its
// kind's loop (kernel_loop.cpp, lockstep_loop.cpp, scenario_loop.cpp), then finished: its
// record derived and kept, its outcome printed and the results saved atomically.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "harness/backend.hpp"
#include "harness/family.hpp"
#include "harness/progress.hpp"
#include "harness/results.hpp"

namespace rooftop {

class PointPipeline {
 public:
  // `writer`: this process prints and saves (rank 0 of a multi-rank run); `out` may be empty.
  PointPipeline(const Backend& backend, RunMetadata metadata, std::vector<Problem> points,
                std::optional<std::filesystem::path> out, bool writer);

  // Timing only (`run --skip-check`, which `ab` passes after its first pair has checked
  // both builds): the points are not checked against the reference, their records say so.
  void skip_checks() { check_ = false; }

  // After the loop has checked its own flags: writes the first, empty results file.
  void start();

  std::size_t size() const { return points_.size(); }
  const Problem& problem(std::size_t i) const { return points_[i].record.problem; }
  Problem& problem(std::size_t i) { return points_[i].record.problem; }
  // What the loop learns while measuring the point (its cache state, its link), kept typed.
  MeasurementFacts& measured(std::size_t i) { return points_[i].record.measured; }
  bool prepared(std::size_t i) const { return points_[i].prepared; }
  bool finished(std::size_t i) const { return points_[i].finished; }
  const ResultRecord& record(std::size_t i) const { return points_[i].record; }
  const Backend& backend() const { return backend_; }
  RunMetadata& metadata() { return results_.meta; }

  // Prints the progress line, checks the memory the point needs, creates its instance with
  // the family's implementation for the backend and checks its results. False when the
  // point will not be measured; its record says why.
  bool prepare(std::size_t i, const SetupContext& setup);
  Instance& instance(std::size_t i) { return *points_[i].instance; }
  // Marks a prepared point as not measured (an error while timed, another rank's refusal).
  void refuse(std::size_t i, Status status, std::string reason);
  // Keeps the point's record with these samples and its derived numbers, frees its
  // instance, prints the outcome and saves the results.
  void finish(std::size_t i, std::vector<Sample> samples,
              std::vector<std::pair<std::string, std::vector<double>>> metrics = {});

  // What the point's scenario computed (ScenarioInstance::outputs), kept in its record.
  void keep_outputs(std::size_t i, nlohmann::ordered_json outputs) { points_[i].record.outputs = std::move(outputs); }

  // A record the loop made itself (a scenario's stage), kept after the point's own, derived.
  void add(ResultRecord record);

  void save(bool last = false) const;
  RunResults take(bool complete);

 private:
  struct Point {
    ResultRecord record;
    std::unique_ptr<Instance> instance;
    bool prepared = false;
    bool finished = false;
  };
  const Backend& backend_;
  std::vector<Point> points_;
  RunResults results_;
  std::optional<std::filesystem::path> out_;
  bool writer_;
  bool once_ = false;  // out_ is a pipe or device: written at the end only
  std::unique_ptr<Progress> progress_;
  bool check_ = true;
  const Ceilings* ceilings() const { return results_.meta.ceilings ? &*results_.meta.ceilings : nullptr; }
};

// The median time and the rate the point's roof bounds (TB/s for a memory-bound point),
// or the status and reason: the progress line's outcome (of a derived record).
std::string outcome_line(const ResultRecord& record);
// A correctness check's max_error_ratio in words: "error 2.5x the allowed bound", or what an
// infinite or NaN ratio means (never "error infx").
std::string error_ratio_text(double ratio);

}  // namespace rooftop
