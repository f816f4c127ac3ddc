#include "harness/tuning_cache.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/atomic_file.hpp"
#include "harness/errors.hpp"
#include "harness/json_file.hpp"
#include "harness/paths.hpp"

namespace rooftop {

std::filesystem::path tuning_cache_path(const std::string& fingerprint) {
  return rooftop_home() / "tuning" / (checked_path_component(fingerprint, "device fingerprint") + ".json");
}

namespace {
InputError bad_tuning_file(const std::filesystem::path& path, const std::string& what) {
  return InputError(fmt::format("{}: {}; delete it and run `rooftop tune` again", path.string(), what));
}

void read_points(const nlohmann::ordered_json& j, std::map<std::string, TunedPoint>& points, const std::filesystem::path& path) {
  for (const auto& [name, p] : j["points"].items()) {
    if (!p.is_object() || !p.contains("tile") || !p["tile"].is_string())
      throw bad_tuning_file(path, fmt::format("field 'points.{}.tile' must be a string", name));
    TunedPoint t;
    t.tile = p["tile"].get<std::string>();
    t.tuned_at = p.value("tuned_at", std::string());
    t.rooftop_version = p.value("rooftop", std::string());
    for (const auto& c : p.value("candidates", nlohmann::ordered_json::array()))
      t.candidates.push_back({c.value("tile", std::string()), c.value("status", std::string()), c.value("median_s", 0.0),
                              c.value("reason", std::string())});
    points[name] = std::move(t);
  }
}

}  // namespace

std::map<std::string, TunedPoint> load_tuning(const std::filesystem::path& path, const std::string& fingerprint) {
  std::map<std::string, TunedPoint> points;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (ec) throw bad_tuning_file(path, ec.message());  // a symbolic-link loop, an unreadable folder
    return points;
  }
  const auto j = read_json_file(path, "tuning file");
  if (!j.is_object() || !j.contains("points") || !j["points"].is_object())
    throw bad_tuning_file(path, "no 'points' object: not a tuning file");
  try {
    read_points(j, points, path);
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong type
    throw bad_tuning_file(path, std::string("a field of the wrong type (") + e.what() + ")");
  }
  // (A broken file is said as such first.) The file's name is the device's fingerprint, but
  // a file copied from another machine keeps its own: its tiles are not this device's choices.
  if (!fingerprint.empty()) {
    const auto own = j.contains("fingerprint") && j["fingerprint"].is_string() ? j["fingerprint"].get<std::string>() : "";
    if (own != fingerprint)
      throw TuningOfAnotherDevice(fmt::format("{}: tuned on device {}, not on this one ({}): its tiles are ignored; run "
                                              "`rooftop tune` on this device to replace them", path.string(),
                                              own.empty() ? "unknown (no 'fingerprint' field)" : own, fingerprint));
  }
  return points;
}

void check_tuning_writable(const std::filesystem::path& path) {
  const auto dir = path.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw InputError(fmt::format("cannot make the tuning folder {}: {}; set ROOFTOP_HOME to a folder you can write",
                                 dir.string(), ec.message()));
  // A folder in its place, the folder's mode, a read-only mount: the checks of every output.
  try {
    check_outputs({{"the tuning file", path}});
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}; the tuning folder is set by ROOFTOP_HOME", e.what()));
  }
}

void save_tuning(const std::filesystem::path& path, const std::string& fingerprint,
                 const std::map<std::string, TunedPoint>& points, const std::vector<std::string>& dropped) {
  std::map<std::string, TunedPoint> kept;
  try {
    kept = load_tuning(path, fingerprint);
  } catch (const TuningOfAnotherDevice&) {  // another device's choices are replaced, not kept
  }
  for (const auto& [name, t] : points) kept[name] = t;
  for (const auto& name : dropped) kept.erase(name);
  nlohmann::ordered_json j = {{"fingerprint", fingerprint}, {"points", nlohmann::ordered_json::object()}};
  for (const auto& [name, t] : kept) {
    auto candidates = nlohmann::ordered_json::array();
    for (const auto& c : t.candidates) {
      nlohmann::ordered_json row = {{"tile", c.tile}, {"status", c.status}};
      if (c.status == "ok") row["median_s"] = c.median_s;
      else row["reason"] = c.reason;
      candidates.push_back(row);
    }
    j["points"][name] = {{"tile", t.tile}, {"tuned_at", t.tuned_at}, {"rooftop", t.rooftop_version},
                         {"candidates", candidates}};
  }
  check_tuning_writable(path);
  write_file_atomically(path, j.dump(2) + "\n");
}

}  // namespace rooftop
