#include "harness/point_pipeline.hpp"

#include <fmt/format.h>

#include <cmath>
#include <new>

#include "harness/atomic_file.hpp"
#include "harness/derived.hpp"
#include "harness/errors.hpp"
#include "harness/registry.hpp"
#include "harness/units.hpp"

namespace rooftop {

std::string error_ratio_text(double ratio) {
  // "error infx" read as a garbled word: say what a non-finite ratio means.
  if (std::isnan(ratio)) return "an error that is not a number (NaN in the output or the reference)";
  if (std::isinf(ratio)) return "an unbounded error (a NaN or infinite output, or a wrong greedy token)";
  return fmt::format("error {:.3g}x the allowed bound", ratio);
}

PointPipeline::PointPipeline(const Backend& backend, RunMetadata metadata, std::vector<Problem> points,
                             std::optional<std::filesystem::path> out, bool writer)
    : backend_(backend), out_(std::move(out)), writer_(writer), once_(out_ && is_stream_output(*out_)) {
  results_.meta = std::move(metadata);
  for (auto& p : points) {
    Point pt;
    pt.record = record_of(std::move(p));
    points_.push_back(std::move(pt));
  }
}

void PointPipeline::start() {
  if (writer_) progress_ = std::make_unique<Progress>(static_cast<int>(points_.size()));
  save();  // an empty, valid file from the start
}

bool PointPipeline::prepare(std::size_t i, const SetupContext& setup) {
  auto& pt = points_[i];
  auto& rec = pt.record;
  const auto& p = rec.problem;
  pt.prepared = true;
  if (progress_) progress_->started(p.name());
  const double available = backend_.available_memory_bytes();
  if (available > 0 && p.memory_bytes > 0.9 * available) {
    rec.status = Status::skipped;
    rec.reason = fmt::format("needs {:.1f} GiB, {:.1f} GiB of {} memory is available", p.memory_bytes / 0x1p30,
                             available / 0x1p30, backend_.name());
    return false;
  }
  try {
    const auto* create = find_implementation(p.family, p.backend);
    if (!create) throw PointSkipped(fmt::format("{} has no '{}' implementation in this build", p.family, p.backend));
    pt.instance = (*create)(p, setup);
    rec.implementation = pt.instance->implementation();
    rec.implementation_label = pt.instance->implementation_label();
    rec.generic_path = pt.instance->generic_path();
    if (check_) rec.correctness = pt.instance->check();
    if (rec.correctness && !rec.correctness->passed) {
      rec.status = Status::failed;
      rec.reason = fmt::format("wrong results: {} ({}) at {}", error_ratio_text(rec.correctness->max_error_ratio),
                               rec.correctness->tolerance, rec.correctness->worst_element);
    }
  } catch (const PointSkipped& e) {
    rec.status = Status::skipped;
    rec.reason = e.what();
  } catch (const std::bad_alloc&) {
    rec.status = Status::error;
    rec.reason = fmt::format("allocation of {:.2f} GiB failed", p.memory_bytes / 0x1p30);
  } catch (const std::exception& e) {
    rec.status = Status::error;
    rec.reason = e.what();
  }
  if (rec.status != Status::ok) pt.instance.reset();
  return rec.status == Status::ok;
}

void PointPipeline::refuse(std::size_t i, Status status, std::string reason) {
  auto& rec = points_[i].record;
  rec.status = status;
  rec.reason = std::move(reason);
}

void PointPipeline::finish(std::size_t i, std::vector<Sample> samples,
                           std::vector<std::pair<std::string, std::vector<double>>> metrics) {
  auto& pt = points_[i];
  pt.finished = true;
  pt.instance.reset();  // free its memory before the next point
  auto rec = std::move(pt.record);
  rec.samples = std::move(samples);
  rec.metrics = std::move(metrics);
  if (rec.status == Status::ok && rec.samples.empty()) {
    rec.status = Status::error;
    rec.reason = "no repetition completed";
  }
  derive_record(rec, ceilings());
  if (progress_) progress_->finished(rec.problem.name(), outcome_line(rec));
  results_.results.push_back(std::move(rec));
  save();
}

void PointPipeline::add(ResultRecord record) {
  derive_record(record, ceilings());
  results_.results.push_back(std::move(record));  // no progress line: its point had one
  save();
}

// A file is rewritten after every point, so that a crash keeps the finished ones; a pipe's
// reader takes one document, so a pipe (or device) gets one, at the end.
void PointPipeline::save(bool last) const {
  if (writer_ && out_ && (last || !once_)) save_results(*out_, results_);
}

RunResults PointPipeline::take(bool complete) {
  progress_.reset();
  results_.meta.complete = complete;
  save(true);
  return std::move(results_);
}

std::string outcome_line(const ResultRecord& rec) {
  if (rec.status != Status::ok) return fmt::format("{} ({})", status_name(rec.status), rec.reason);
  const Derived& d = derived_of(rec);
  if (!d.summary || !d.throughput) return "no samples";
  const auto& place = d.roofline;
  return fmt::format("{}, {}", format_duration(d.summary->median),
                     bound_rate(rec.problem.dtype, place ? bound_name(place->bound) : "", d.throughput->flops_per_s,
                                d.throughput->bytes_per_s, place ? place->compute_peak : 0, place ? place->bandwidth : 0));
}

}  // namespace rooftop
