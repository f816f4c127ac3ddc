#include "reports/report_sides.hpp"

#include <fmt/format.h>

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
  std::map<std::string, int> files_of;
  for (const auto& in : inputs) ++files_of[in.run.meta.fingerprint];
  std::map<std::string, int> seen;  // a file name given twice (two folders) takes its place in the list
  for (auto& in : sides.inputs) {
    const std::string fp = in.run.meta.fingerprint;
    if (files_of[fp] < 2) continue;
    sides.runs_of_one_device = true;
    std::string file = std::filesystem::path(in.origin).filename().string();
    if (++seen[fp + "/" + file] > 1) file += fmt::format(" ({})", seen[fp + "/" + file]);
    const std::string label = run_label(in, file);
    rename_device(in.run.meta, device_display_name(in.run.meta.device) + " · " + label);
    in.run.meta.fingerprint = fp + " · " + file;
    if (const auto price = options.price_usd.find(fp); price != options.price_usd.end())
      sides.options.price_usd[in.run.meta.fingerprint] = price->second;
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
