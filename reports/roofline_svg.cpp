#include "reports/roofline_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "reports/log_axis.hpp"
#include "reports/svg_text.hpp"

namespace rooftop::reports {
namespace {
// Room on the right for the ceilings' labels ("datasheet fp32_vector 67 TFLOP/s" whole).
constexpr double kWidth = 880, kHeight = 500, kLeft = 80, kRight = 250, kTop = 24, kBottom = 56;
constexpr double kLabelGap = 13;  // pixels between two labels' baselines

// A dtype's colour: its points and its compute ceilings share it.
std::string dtype_colour(const std::string& dtype) {
  static const std::map<std::string, std::string> colours{{"fp32", "#1f77b4"}, {"tf32", "#17becf"}, {"bf16", "#d62728"},
                                                          {"fp16", "#ff7f0e"}, {"fp8", "#9467bd"}, {"int8", "#2ca02c"}};
  const auto it = colours.find(dtype);
  return it == colours.end() ? "#555" : it->second;
}

// A suite's marker: circle, square, triangle, diamond in turn.
std::string marker(int shape, double x, double y, const std::string& colour) {
  switch (shape % 4) {
    case 1: return fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="9" height="9" fill="{}")", x - 4.5, y - 4.5, colour);
    case 2: return fmt::format(R"(<path d="M{:.1f},{:.1f} l5,9 l-10,0 z" fill="{}")", x, y - 5.5, colour);
    case 3: return fmt::format(R"(<path d="M{:.1f},{:.1f} l5,5 l-5,5 l-5,-5 z" fill="{}")", x, y - 5, colour);
    default: return fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="5" fill="{}")", x, y, colour);
  }
}
const char* marker_element(int shape) { return shape % 4 == 0 ? "circle" : shape % 4 == 1 ? "rect" : "path"; }

struct Label {
  double y = 0;  // where its line is
  std::string text, colour;
};
// Spreads labels at least kLabelGap apart, in their order, inside [top, bottom].
std::vector<double> spread(std::vector<Label>& labels, double top, double bottom) {
  std::sort(labels.begin(), labels.end(), [](const Label& a, const Label& b) { return a.y < b.y; });
  std::vector<double> at;
  for (const auto& l : labels) at.push_back(std::max(l.y, at.empty() ? top : at.back() + kLabelGap));
  for (std::size_t i = at.size(); i-- > 0;)  // pushed below the bottom: back up
    at[i] = std::min(at[i], i + 1 < at.size() ? at[i + 1] - kLabelGap : bottom);
  return at;
}
}  // namespace

std::vector<RidgePoint> ridge_points(const Ceilings& c) {
  std::vector<RidgePoint> ridges;
  if (c.bandwidth.empty()) return ridges;
  const auto& slowest = c.bandwidth.back();
  for (const auto& compute : c.compute)
    ridges.push_back({compute.name, slowest.level, ridge_intensity(compute.flops_per_s, slowest.bytes_per_s), compute.flops_per_s});
  return ridges;
}

namespace {
// One set of roofs on a chart: a device's measured or datasheet ceilings.
struct RoofSet {
  const Ceilings* ceilings = nullptr;
  bool dashed = false;
  std::string prefix;                 // before each compute label: "datasheet "
  std::string device;                 // before each tooltip: whose roof it is (the overlay's)
  std::string colour;                 // every line in it; empty: each compute roof in its dtype's colour
  std::vector<std::string> dtypes;    // compute roofs drawn; empty: all
  bool slowest_memory_only = false;   // the overlay keeps one memory line per device
  bool memory_labels = false, ridges = false;
};
struct LegendEntry {
  int shape = -1;  // -1: a colour swatch
  std::string colour, text;
};

bool drawn(const RoofSet& set, const std::string& dtype) {
  return set.dtypes.empty() || std::find(set.dtypes.begin(), set.dtypes.end(), dtype) != set.dtypes.end();
}

// The chart both kinds share: axes fitted to the points and roofs, the roofs with their labels
// spread on the right, the points (marker by `shapes`, colour each its own) and a legend.
std::string draw_chart(const std::string& svg_class, const std::vector<RoofSet>& sets, const std::vector<ChartPoint>& points,
                       const std::map<std::string, int>& shapes, const std::vector<LegendEntry>& legend) {
  std::vector<double> xs, ys;
  for (const auto& p : points) {
    xs.push_back(p.intensity);
    ys.push_back(p.flops_per_s);
  }
  for (const auto& set : sets) {
    for (const auto& r : ridge_points(*set.ceilings)) xs.push_back(r.intensity);
    for (const auto& k : set.ceilings->compute)
      if (drawn(set, k.dtype)) ys.push_back(k.flops_per_s);
  }
  LogAxis x = fit_log_axis(xs, kLeft, kWidth - kRight);
  // Room on the left for the bandwidth lines to start low.
  x.low = std::min(x.low, 0.1);
  std::vector<double> yv = ys;
  for (const auto& set : sets)
    if (!set.dashed)
      for (const auto& b : set.ceilings->bandwidth) yv.push_back(b.bytes_per_s * x.low);
  const LogAxis y = fit_log_axis(yv, kHeight - kBottom, kTop);

  std::string svg = fmt::format(R"(<svg class="{}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img">)", svg_class,
                                kWidth, kHeight);
  svg += "\n";
  // Grid and axes.
  for (double d : x.decades())
    svg += fmt::format(R"(<line class="grid" x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}"/><text class="tick" x="{0:.1f}" y="{3}" text-anchor="middle">{4}</text>)",
                       x.to_pixel(d), kTop, kHeight - kBottom, kHeight - kBottom + 16, fmt::format("{:g}", d)) + "\n";
  for (double d : y.decades())
    svg += fmt::format(R"(<line class="grid" x1="{1}" y1="{0:.1f}" x2="{2}" y2="{0:.1f}"/><text class="tick" x="{3}" y="{0:.1f}" text-anchor="end" dominant-baseline="middle">{4}</text>)",
                       y.to_pixel(d), kLeft, kWidth - kRight, kLeft - 6, si(d, "")) + "\n";
  svg += fmt::format(R"(<text class="axis" x="{:.1f}" y="{}" text-anchor="middle">arithmetic intensity (FLOP/byte)</text>)",
                     (kLeft + kWidth - kRight) / 2, kHeight - 12);
  svg += fmt::format(R"~(<text class="axis" transform="translate(16,{:.1f}) rotate(-90)" text-anchor="middle">FLOP/s</text>)~",
                     (kTop + kHeight - kBottom) / 2) + "\n";
  // Roofs: dashed for a datasheet, labels on the right spread so that none overprints another.
  std::vector<Label> right;
  for (const auto& set : sets) {
    const Ceilings& c = *set.ceilings;
    if (c.compute.empty() || c.bandwidth.empty()) continue;
    const std::string cls = set.dashed ? "ceiling datasheet" : "ceiling";
    const std::string memory_style = set.colour.empty() ? "" : fmt::format(R"( style="stroke:{}")", set.colour);
    double top = 0, fastest = 0;
    for (const auto& k : c.compute)
      if (drawn(set, k.dtype)) top = std::max(top, k.flops_per_s);
    if (!(top > 0)) continue;
    for (const auto& b : c.bandwidth) fastest = std::max(fastest, b.bytes_per_s);
    for (std::size_t i = set.slowest_memory_only ? c.bandwidth.size() - 1 : 0; i < c.bandwidth.size(); ++i) {
      const auto& b = c.bandwidth[i];
      const double x_end = std::min(x.high, top / b.bytes_per_s);
      svg += fmt::format(R"(<line class="{} memory"{} x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"><title>{}{} {}</title></line>)",
                         cls, memory_style, x.to_pixel(x.low), y.to_pixel(b.bytes_per_s * x.low), x.to_pixel(x_end),
                         y.to_pixel(b.bytes_per_s * x_end), svg_escape(set.device), svg_escape(b.level), si(b.bytes_per_s, "B/s"));
      if (set.memory_labels)
        svg += fmt::format(R"(<text class="label memory-label" x="{:.1f}" y="{:.1f}">{} {}</text>)", x.to_pixel(x.low) + 4,
                           y.to_pixel(b.bytes_per_s * x.low) - 4, svg_escape(b.level), si(b.bytes_per_s, "B/s"));
      svg += "\n";
    }
    for (const auto& k : c.compute) {
      if (!drawn(set, k.dtype)) continue;
      const std::string colour = set.colour.empty() ? dtype_colour(k.dtype) : set.colour;
      const double x_start = std::max(x.low, k.flops_per_s / fastest);
      svg += fmt::format(R"(<line class="{} compute" style="stroke:{}" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"><title>{}{} {}</title></line>)",
                         cls, colour, x.to_pixel(x_start), y.to_pixel(k.flops_per_s), x.to_pixel(x.high), y.to_pixel(k.flops_per_s),
                         svg_escape(set.device), svg_escape(k.name), si(k.flops_per_s, "FLOP/s")) + "\n";
      right.push_back({y.to_pixel(k.flops_per_s), fmt::format("{}{} {}", set.prefix, k.name, si(k.flops_per_s, "FLOP/s")), colour});
    }
    if (set.ridges)
      for (const auto& r : ridge_points(c))
        // The intensity in the tooltip only: six ridges' labels overprinted each other.
        svg += fmt::format(R"(<circle class="ridge" cx="{:.1f}" cy="{:.1f}" r="3"><title>ridge of {} on {}: {:.3g} FLOP/byte</title></circle>)",
                           x.to_pixel(r.intensity), y.to_pixel(r.flops_per_s), svg_escape(r.compute), svg_escape(r.level),
                           r.intensity) + "\n";
  }
  const auto at = spread(right, kTop, kHeight - kBottom);
  for (std::size_t i = 0; i < right.size(); ++i) {
    const double x0 = x.to_pixel(x.high);
    if (std::fabs(at[i] - right[i].y) > 1)  // moved: a leader from its line to it
      svg += fmt::format(R"(<line class="leader" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}"/>)", x0, right[i].y,
                         x0 + 8, at[i], right[i].colour);
    svg += fmt::format(R"(<text class="label ceiling-label" x="{:.1f}" y="{:.1f}" dominant-baseline="middle" fill="{}">{}</text>)",
                       x0 + 10, at[i], right[i].colour, svg_escape(right[i].text)) + "\n";
  }
  for (const auto& p : points) {
    const int shape = shapes.at(p.suite);
    const std::string id = p.id.empty() ? "" : fmt::format(R"( id="{}")", svg_escape(p.id));
    const std::string& row = p.row.empty() ? p.id : p.row;
    svg += fmt::format(R"(<g class="point"{} data-row="{}" data-suite="{}" data-dtype="{}">{}><title>{}</title></{}></g>)", id,
                       svg_escape(row), svg_escape(p.suite),
                       svg_escape(p.dtype),
                       marker(shape, x.to_pixel(p.intensity), y.to_pixel(p.flops_per_s),
                              p.colour.empty() ? dtype_colour(p.dtype) : p.colour),
                       svg_escape(p.tooltip), marker_element(shape)) + "\n";
  }
  double ly = kTop + 8;
  for (const auto& e : legend) {
    svg += e.shape < 0 ? fmt::format(R"(<rect x="{}" y="{:.1f}" width="10" height="10" fill="{}"/>)", kLeft + 8, ly, e.colour)
                       : marker(e.shape, kLeft + 13, ly + 5, e.colour) + "/>";
    svg += fmt::format(R"(<text class="label legend-label" x="{}" y="{:.1f}">{}</text>)", kLeft + 24, ly + 9, svg_escape(e.text)) + "\n";
    ly += 16;
  }
  svg += "</svg>";
  return svg;
}
}  // namespace

std::string roofline_svg(const Ceilings* measured, const Datasheet* datasheet, const std::vector<ChartPoint>& points) {
  // Colour by dtype (as its roof), marker by suite; the legend says both.
  std::map<std::string, int> shapes;
  std::map<std::string, bool> dtypes;
  for (const auto& p : points) {
    if (!shapes.count(p.suite)) shapes.emplace(p.suite, static_cast<int>(shapes.size()));
    dtypes[p.dtype] = true;
  }
  // Only the compute roofs of the dtypes the results ran in (all of them on a chart without
  // points): twelve roofs over four dtypes hid the points; the ceilings' table lists every one.
  std::vector<std::string> ran;
  for (const auto& [dtype, unused] : dtypes) ran.push_back(dtype);
  std::vector<RoofSet> sets;
  if (measured) sets.push_back({measured, false, "", "", "", ran, false, true, true});
  if (datasheet) sets.push_back({&datasheet->ceilings, true, "datasheet ", "", "", ran, false, false, false});
  std::vector<LegendEntry> legend;
  for (const auto& [dtype, unused] : dtypes) legend.push_back({-1, dtype_colour(dtype), dtype});
  for (const auto& [suite, shape] : shapes) legend.push_back({shape, "#555", suite});
  return draw_chart("roofline", sets, points, shapes, legend);
}

std::string overlay_roofline_svg(const std::vector<OverlayDevice>& devices) {
  std::vector<RoofSet> sets;
  std::vector<ChartPoint> points;
  std::map<std::string, int> shapes;
  std::vector<LegendEntry> legend;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    const std::string colour = kChartPalette[i % std::size(kChartPalette)];
    const int shape = static_cast<int>(i);
    shapes[d.name] = shape;
    legend.push_back({shape, colour, d.name});
    // Only the roofs of the dtypes this device's points ran in, and its slowest memory level.
    std::vector<std::string> dtypes;
    for (const auto& p : d.points) {
      if (std::find(dtypes.begin(), dtypes.end(), p.dtype) == dtypes.end()) dtypes.push_back(p.dtype);
      ChartPoint q = p;
      q.row = p.id;
      q.id.clear();  // the per-device charts own the ids
      q.suite = d.name;
      q.colour = colour;
      points.push_back(q);
    }
    // Labels name the roof alone (the colour says whose); tooltips name the device too.
    if (d.ceilings)
      sets.push_back({d.ceilings, d.datasheet_only, d.datasheet_only ? "datasheet " : "", d.name + ": ", colour, dtypes, true, false, false});
  }
  return draw_chart("roofline overlay", sets, points, shapes, legend);
}

}  // namespace rooftop::reports
