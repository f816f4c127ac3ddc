#pragma once
// The stages of a scenario (embedding, norms, projections, attention, ...) timed in a
// profiling pass apart from the timed repetitions: each stage a span on the host's clock,
// nested under its layer and its forward. From them: a point per stage for the roofline,
// and a Chrome trace-event file that Perfetto's UI and chrome://tracing open.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rooftop {

struct StageSpan {
  std::string name;   // "qkv", "attention"; a forward is "forward", a layer "layer"
  int layer = -1;     // -1: not in a layer
  int forward = 0;    // which forward of the pass
  double start_s = 0, end_s = 0;  // since the recorder was made
};

class StageRecorder {
 public:
  StageRecorder() : origin_(std::chrono::steady_clock::now()) {}
  double now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count(); }
  void record(std::string name, int layer, double start_s, double end_s) {
    spans_.push_back({std::move(name), layer, forward_, start_s, end_s});
  }
  void next_forward() { ++forward_; }
  int forwards() const { return forward_; }
  const std::vector<StageSpan>& spans() const { return spans_; }
  // What the spans' times were read from: "host clock", or a backend's device events.
  void set_clock(std::string clock) { clock_ = std::move(clock); }
  const std::string& clock() const { return clock_; }

  // Times one stage: from construction to destruction (a null recorder: nothing).
  class Scope {
   public:
    Scope(StageRecorder* r, const char* name, int layer) : r_(r), name_(name), layer_(layer), start_(r ? r->now() : 0) {}
    ~Scope() {
      if (r_) r_->record(name_, layer_, start_, r_->now());
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    StageRecorder* r_;
    const char* name_;
    int layer_;
    double start_;
  };

 private:
  std::chrono::steady_clock::time_point origin_;
  std::vector<StageSpan> spans_;
  std::string clock_ = "host clock";
  int forward_ = 0;
};

// The spans as Chrome trace events ("X" complete events, microseconds) in process `pid`
// named `process` (one a point), thread `tid` named `thread` (the host; a rank's track where
// several ranks run the point); layers and forwards enclose their stages.
void append_trace_events(nlohmann::ordered_json& events, const std::vector<StageSpan>& spans, int pid,
                         const std::string& process, int tid = 1, const std::string& thread = "host");
// {"traceEvents": [...], "displayTimeUnit": "ms"}, written atomically.
void write_trace(const std::filesystem::path& path, const nlohmann::ordered_json& events);

}  // namespace rooftop
