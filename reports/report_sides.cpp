#include "reports/report_sides.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "reports/result_rows.hpp"

namespace rooftop::reports {
namespace {

// "night2.json, 2026-11-28 03:12, 1a2b3c4": what tells two runs of one device apart.
std::string run_label(const ReportInput& in, const std::string& file) {
  std::string label = file;
  const auto& created = in.run.meta.created;  // ISO 8601: 2026-11-28T03:12:45Z
  if (created.size() >= 16) label += ", " + created.substr(0, 10) + " " + created.substr(11, 5);
  if (!in.run.meta.git_commit.empty() && in.run.meta.git_commit != "unknown")
    label += ", " + in.run.meta.git_commit.substr(0, 7);
  return label;
}

// The name the report shows for the device, written where device_display_name reads it.
void rename_device(RunMetadata& meta, const std::string& name) {
  if (!meta.device.is_object()) meta.device = nlohmann::ordered_json::object();
  auto& props = meta.device.contains("properties") && meta.device["properties"].is_object() ? meta.device["properties"]
                                                                                             : meta.device;
  props["model_name"] = name;
}

}  // namespace

ReportSides report_sides(const std::vector<ReportInput>& inputs, const ReportOptions& options) {
  ReportSides sides{inputs, options, false, false};
  // A device's files, grouped into runs: a file joins the first run of its device that has
  // none of its points (one night's GEMM and inference files are one run; a second night's
  // GEMM file, whose points the first already has, starts another).
  struct Run {
    std::vector<std::size_t> files;
    std::set<std::string> points;
  };
  std::map<std::string, std::vector<Run>> runs_of;  // by fingerprint
  std::vector<std::size_t> run_index(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto& runs = runs_of[inputs[i].run.meta.fingerprint];
    std::set<std::string> points;
    for (const auto& r : inputs[i].run.results) points.insert(r.problem.name());
    std::size_t k = 0;
    while (k < runs.size() && std::any_of(points.begin(), points.end(), [&](const auto& p) { return runs[k].points.count(p); }))
      ++k;
    if (k == runs.size()) runs.emplace_back();
    runs[k].files.push_back(i);
    runs[k].points.insert(points.begin(), points.end());
    run_index[i] = k;
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string fp = inputs[i].run.meta.fingerprint;
    const auto& runs = runs_of[fp];
    if (runs.size() < 2) continue;
    sides.runs_of_one_device = true;
    // Named by its files ("night2-gemm.json + night2-inference.json"), its first file's date
    // and commit; the run's number keeps two runs of like-named files apart.
    const auto& run = runs[run_index[i]];
    std::string files;
    for (std::size_t f : run.files)
      files += (files.empty() ? "" : " + ") + std::filesystem::path(inputs[f].origin).filename().string();
    const std::string key = fmt::format("{} · run {}", fp, run_index[i] + 1);
    auto& in = sides.inputs[i];
    rename_device(in.run.meta, device_display_name(inputs[i].run.meta.device) + " · " + run_label(inputs[run.files[0]], files));
    in.run.meta.fingerprint = key;
    if (const auto price = options.price_usd.find(fp); price != options.price_usd.end())
      sides.options.price_usd[key] = price->second;
  }
  // Two devices of one model (two clouds' H100s): each named by its file as well.
  std::map<std::string, std::set<std::string>> fingerprints_named;
  for (const auto& in : sides.inputs) fingerprints_named[device_display_name(in.run.meta.device)].insert(in.run.meta.fingerprint);
  for (auto& in : sides.inputs) {
    const std::string name = device_display_name(in.run.meta.device);
    if (fingerprints_named[name].size() < 2) continue;
    sides.devices_of_one_model = true;
    rename_device(in.run.meta, name + " · " + std::filesystem::path(in.origin).filename().string());
  }
  return sides;
}

}  // namespace rooftop::reports
