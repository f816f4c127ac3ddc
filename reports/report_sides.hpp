#pragma once
// The sides of a report: each device, and each run of a device that ran more than once (two
// nights of one H100, before and after a driver upgrade). The report compares its sides
// against the first; a device that ran twice is two runs to compare, never one roofline of
// both runs' points with rows in identical pairs. Files of one device with no point in
// common (one night's GEMM and inference files) are one run.
#include <vector>

#include "reports/html_report.hpp"

namespace rooftop::reports {

struct ReportSides {
  std::vector<ReportInput> inputs;  // as given, a repeated device's runs each named by its file
  ReportOptions options;            // prices carried over to the renamed sides
  bool runs_of_one_device = false;    // some device appears in more than one file
  bool devices_of_one_model = false;  // two devices share a name: each also named by its file
};

// Where a device's files hold one point more than once, each run of them (a file joins the
// first run with none of its points) becomes a side of its own: its device name carries its
// files' names, the first one's date and commit ("NVIDIA H100 80GB HBM3 · night2.json,
// 2026-11-28 03:12, 1a2b3c4"). Two devices of one
// model (different fingerprints, one name) are each named by their file as well
// ("NVIDIA H100 80GB HBM3 · cloud-a.json"). Otherwise the inputs as they are.
ReportSides report_sides(const std::vector<ReportInput>& inputs, const ReportOptions& options);

}  // namespace rooftop::reports
