#include "reports/terminal_table.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cctype>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/units.hpp"
#include "reports/diagnosis.hpp"
#include "reports/machine_text.hpp"
#include "reports/result_rows.hpp"
#include "reports/run_conditions.hpp"
#include "reports/run_scope.hpp"
#include "reports/serve_table.hpp"

namespace rooftop::reports {
namespace {

enum class Elide { never, end, middle };

struct Column {
  std::string header;
  bool right = false;  // numbers right, words left
  Elide elide = Elide::never;
  std::size_t min_width = 0;  // elided no narrower than this
  std::vector<std::string> cells;
  std::size_t width() const {
    std::size_t w = header.size();
    for (const auto& c : cells) w = std::max(w, c.size());
    return w;
  }
};

std::string elided(const std::string& s, std::size_t width, Elide how) {
  if (s.size() <= width || how == Elide::never || width < 4) return s;
  if (how == Elide::end) return s.substr(0, width - 2) + "..";
  const std::size_t head = (width - 2 + 1) / 2;
  return s.substr(0, head) + ".." + s.substr(s.size() - (width - 2 - head));
}

std::string lower_slug(std::string s) {  // "split-KV x8" -> "split-kv_x8"
  for (auto& c : s) c = c == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The shape without a trailing "_<label>" that the implementation column already shows
// (attention's "..._causal_fused_wgm192n128w12s2" beside "wgm192n128w12s2").
std::string shape_beside(const std::string& shape, const std::string& label) {
  const std::string tail = "_" + lower_slug(label);
  const std::string s = lower_slug(shape);
  return s.size() > tail.size() && s.ends_with(tail) ? shape.substr(0, shape.size() - tail.size()) : shape;
}

// The figure that says how close the point is to the roof that bounds it; a collective's
// is its bus bandwidth (nccl-tests' busbw).
std::string achieved(const ResultRecord& r, const Derived& d) {
  if (!d.throughput) return "-";
  const auto& t = *d.throughput;
  if (t.bus_bytes_per_s) return format_si(*t.bus_bytes_per_s, "B/s");
  const auto& roof = d.roofline;
  return bound_rate(r.problem.dtype, roof ? bound_name(roof->bound) : "", t.flops_per_s, t.bytes_per_s,
                    roof ? roof->compute_peak : 0, roof ? roof->bandwidth : 0);
}

std::string intensity(const ResultRecord& r) {
  const double ai = r.problem.work.arithmetic_intensity();
  if (ai <= 0) return "-";
  return ai < 100 ? fmt::format("{:.1f}", ai) : fmt::format("{:.0f}", ai);
}

// "84% mem", "97% comp", "12% lat", "91% link"; "!" marks a point above its roof.
std::string roof_cell(const Derived& d) {
  if (const auto& roof = d.roofline)
    return fmt::format("{:.0f}% {}{}", 100.0 * roof->fraction_of_attainable,
                       roof->bound == Bound::memory ? "mem" : roof->bound == Bound::compute ? "comp" : "lat",
                       roof->above_ceiling ? "!" : "");
  if (d.throughput && d.throughput->link) return fmt::format("{:.0f}% link", d.throughput->link->percent);
  return "-";
}

std::string check_word(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::skipped: return "skip";
    case Status::failed: return "FAIL";
    case Status::error: break;
  }
  return std::string(status_name(status));
}

// Word-wrapped to `width`, later lines indented under the text; a word longer than a
// line is cut across lines.
void print_wrapped(std::ostream& out, const std::string& first, const std::string& text, std::size_t width) {
  const std::string indent(first.size(), ' ');
  std::string line = first;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (line.size() > indent.size() && line.size() + 1 + word.size() > width) {
      fmt::print(out, "{}\n", line);
      line = indent;
    }
    if (line.size() > indent.size()) line += ' ';
    while (line.size() + word.size() > width) {
      const std::size_t room = width - line.size();
      fmt::print(out, "{}{}\n", line, word.substr(0, room));
      word.erase(0, room);
      line = indent;
    }
    line += word;
  }
  fmt::print(out, "{}\n", line);
}

void print_columns(std::ostream& out, std::vector<Column>& cols, std::size_t budget) {
  std::vector<std::size_t> width;
  for (const auto& c : cols) width.push_back(c.width());
  auto total = [&] {
    std::size_t t = 2 * (cols.size() - 1);
    for (auto w : width) t += w;
    return t;
  };
  // Too wide: narrow the elidable columns, the implementation before the shape.
  for (int pass = 0; pass < 2 && total() > budget; ++pass)
    for (std::size_t c = 0; c < cols.size(); ++c) {
      if (cols[c].elide != (pass == 0 ? Elide::end : Elide::middle)) continue;
      const std::size_t over = total() - std::min(total(), budget);
      width[c] = std::min(width[c], std::max(cols[c].min_width, width[c] - std::min(width[c], over)));
    }
  const auto rows = cols.front().cells.size();
  for (std::size_t r = 0; r <= rows; ++r) {  // r == 0: the header
    std::string line;
    for (std::size_t c = 0; c < cols.size(); ++c) {
      const std::string s = elided(r ? cols[c].cells[r - 1] : cols[c].header, width[c], cols[c].elide);
      const std::string pad(width[c] - std::min(width[c], s.size()), ' ');
      line += (c ? "  " : "") + (cols[c].right ? pad + s : s + (c + 1 < cols.size() ? pad : ""));
    }
    if (line.size() > budget) line = elided(line, budget, Elide::end);  // no column could give way
    fmt::print(out, "{}\n", line);
  }
}

void print_header(std::ostream& out, const RunMetadata& m, std::size_t budget) {
  const auto line = fmt::format("rooftop {} | {} | {} | {}", m.rooftop_version, run_scope(m.tier, m.command),
                                device_display_name_of(m), m.fingerprint);
  fmt::print(out, "{}\n{}\n", elided(line, budget, Elide::middle), elided(ceilings_text(m), budget, Elide::middle));
  if (const auto machine = machine_text(m.device); !machine.empty()) fmt::print(out, "{}\n", elided(machine, budget, Elide::end));
  const std::size_t width = budget == std::string::npos ? kTerminalColumns : budget;
  if (const auto gpu = device_state_line(m.conditions); !gpu.empty()) print_wrapped(out, "", gpu, width);
  if (const auto busy = busy_host_warning(m.conditions); !busy.empty()) print_wrapped(out, "", busy, width);
  for (const auto& raised : remeasured_lines(m.conditions)) print_wrapped(out, "", "ceiling " + raised, width);
}

void print_compact(std::ostream& out, const RunResults& run) {
  // One table per workload, in the order the run met them.
  const auto workload_of = [](const ResultRecord& r) { return r.problem.family + "/" + r.problem.backend; };
  std::vector<std::string> workloads;
  for (const auto& r : run.results)
    if (std::find(workloads.begin(), workloads.end(), workload_of(r)) == workloads.end()) workloads.push_back(workload_of(r));
  for (const auto& workload : workloads) {
    std::vector<Column> cols = {{workload, false, Elide::middle, 20, {}}, {"dtype", false, Elide::never, 0, {}},
                                {"implementation", false, Elide::end, 14, {}}, {"time", true, Elide::never, 0, {}},
                                {"achieved", true, Elide::never, 0, {}},  {"AI", true, Elide::never, 0, {}},
                                {"roof", true, Elide::never, 0, {}},      {"check", false, Elide::never, 0, {}}};
    std::vector<std::string> notes;
    for (const auto& r : run.results) {
      if (workload_of(r) != workload) continue;
      const auto& d = derived_of(r);
      const std::string dtype(dtype_name(r.problem.dtype));
      const auto label = label_of(r);
      const auto shape = shape_beside(r.problem.shape, label);
      std::string check = check_word(r.status);
      std::string note = r.reason;
      if (d.roofline && d.roofline->above_ceiling) {  // with the numbers that say so: the rate and the ceiling
        const auto evidence = diagnose(r, run.meta.ceilings ? &*run.meta.ceilings : nullptr).evidence;
        note = fmt::format("above its roof: the ceiling was measured low ({}; see the warning below the table)",
                           evidence.substr(0, evidence.find(';')));
      }
      if (slow_generic_path(r)) {
        check += " GENERIC";
        note = fmt::format("a generic path, {:.0f}% of its roof: it measures rooftop's fallback, not the machine ({})",
                           100.0 * d.roofline->fraction_of_attainable, r.generic_path);
      }
      if (!note.empty()) {
        notes.push_back(fmt::format("{} {}: {}", dtype, shape, note));
        check += fmt::format(" [{}]", notes.size());
      }
      for (auto [c, cell] : {std::pair{0, shape}, {1, dtype}, {2, label},
                             {3, d.summary ? format_duration(d.summary->median) : "-"},
                             {4, achieved(r, d)}, {5, intensity(r)}, {6, roof_cell(d)}, {7, check}})
        cols[static_cast<std::size_t>(c)].cells.push_back(cell);
    }
    fmt::print(out, "\n");
    print_columns(out, cols, kTerminalColumns);
    for (std::size_t n = 0; n < notes.size(); ++n)
      print_wrapped(out, fmt::format("  [{}] ", n + 1), notes[n], kTerminalColumns);
  }
}

void print_wide(std::ostream& out, const RunResults& run) {
  const auto t = result_table(run);
  std::vector<Column> cols;
  for (std::size_t c = 0; c < t.display_headers.size(); ++c) {
    Column col{t.display_headers[c], c >= 4 && c + 2 < t.display_headers.size(), Elide::never, 0, {}};
    for (const auto& row : t.rows) col.cells.push_back(row[c].display);
    cols.push_back(std::move(col));
  }
  fmt::print(out, "\n");
  print_columns(out, cols, std::string::npos);
}
}  // namespace

void print_terminal_table(std::ostream& out, const RunResults& run, bool wide) {
  print_header(out, run.meta, wide ? std::string::npos : kTerminalColumns);
  if (run.results.empty()) return;
  if (wide) print_wide(out, run);
  else print_compact(out, run);
  print_serve_table(out, run);
}

}  // namespace rooftop::reports
