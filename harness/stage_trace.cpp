#include "harness/stage_trace.hpp"

#include "harness/atomic_file.hpp"

namespace rooftop {

void append_trace_events(nlohmann::ordered_json& events, const std::vector<StageSpan>& spans, int pid,
                         const std::string& process, int tid, const std::string& thread) {
  if (tid == 1) events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 1}, {"args", {{"name", process}}}});
  events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", thread}}}});
  for (const auto& s : spans) {
    nlohmann::ordered_json e = {{"name", s.name}, {"cat", s.layer >= 0 ? "layer" : "model"}, {"ph", "X"},
                                {"ts", s.start_s * 1e6}, {"dur", (s.end_s - s.start_s) * 1e6}, {"pid", pid}, {"tid", tid}};
    e["args"] = {{"forward", s.forward}};
    if (s.layer >= 0) e["args"]["layer"] = s.layer;
    events.push_back(std::move(e));
  }
}

void write_trace(const std::filesystem::path& path, const nlohmann::ordered_json& events) {
  const nlohmann::ordered_json doc = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  write_file_atomically(path, doc.dump() + "\n");
}

}  // namespace rooftop
