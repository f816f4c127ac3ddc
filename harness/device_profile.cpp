#include "harness/device_profile.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <cmath>
#include <fstream>
#include <sstream>

#include "harness/atomic_file.hpp"
#include "harness/errors.hpp"
#include "harness/input_file.hpp"
#include "harness/json_file.hpp"
#include "harness/results.hpp"
#include "harness/version.hpp"

namespace rooftop {
namespace {
using json = nlohmann::ordered_json;
using ojson = nlohmann::ordered_json;

[[noreturn]] void bad(const std::string& origin, const std::string& field, const std::string& what) {
  throw InputError(fmt::format("{}: field '{}' {}; re-run `rooftop characterize` to make a new profile",
                               origin, field, what));
}

const json& member(const json& j, const char* key, const std::string& origin, const std::string& path) {
  if (!j.is_object() || !j.contains(key)) bad(origin, path + key, "is missing");
  return j.at(key);
}

std::string text(const json& j, const char* key, const std::string& origin, const std::string& path) {
  const auto& v = member(j, key, origin, path);
  if (!v.is_string()) bad(origin, path + key, "is not a string");
  return v.get<std::string>();
}

double positive(const json& j, const char* key, const std::string& origin, const std::string& path,
                bool zero_allowed = false) {
  const auto& v = member(j, key, origin, path);
  if (!v.is_number()) bad(origin, path + key, "is not a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0 || (!zero_allowed && x == 0))
    bad(origin, path + key, fmt::format("is {} (must be a finite {} number)", x,
                                        zero_allowed ? "non-negative" : "positive"));
  return x;
}

Ceilings ceilings_from_json(const json& j, const std::string& origin, const std::string& path) {
  Ceilings c;
  const auto& compute = member(j, "compute", origin, path);
  if (!compute.is_array()) bad(origin, path + "compute", "is not an array");
  for (std::size_t i = 0; i < compute.size(); ++i) {
    const std::string p = fmt::format("{}compute[{}].", path, i);
    c.compute.push_back({text(compute[i], "name", origin, p), text(compute[i], "dtype", origin, p),
                         text(compute[i], "unit", origin, p),
                         positive(compute[i], "flops_per_s", origin, p)});
  }
  const auto& bandwidth = member(j, "bandwidth", origin, path);
  if (!bandwidth.is_array()) bad(origin, path + "bandwidth", "is not an array");
  for (std::size_t i = 0; i < bandwidth.size(); ++i) {
    const std::string p = fmt::format("{}bandwidth[{}].", path, i);
    c.bandwidth.push_back({text(bandwidth[i], "level", origin, p),
                           positive(bandwidth[i], "bytes_per_s", origin, p),
                           positive(bandwidth[i], "capacity_bytes", origin, p, true)});
  }
  if (j.contains("links")) {
    const auto& links = j["links"];
    if (!links.is_array()) bad(origin, path + "links", "is not an array");
    for (std::size_t i = 0; i < links.size(); ++i) {
      const std::string p = fmt::format("{}links[{}].", path, i);
      c.links.push_back({text(links[i], "name", origin, p), positive(links[i], "bytes_per_s", origin, p)});
    }
  }
  if (j.contains("dispatch_latency_s"))
    c.dispatch_latency_s = positive(j, "dispatch_latency_s", origin, path, true);
  return c;
}
}  // namespace

DeviceProfile new_profile(std::string backend, std::string fingerprint, nlohmann::ordered_json device, int threads) {
  DeviceProfile p;
  p.backend = std::move(backend);
  p.fingerprint = std::move(fingerprint);
  p.device = std::move(device);
  p.created = utc_now_iso8601();
  p.rooftop_version = std::string(kVersion) + "+" + kGitCommit;
  p.threads = threads;
  return p;
}

Ceilings merge_ceilings(const Ceilings& stored, const Ceilings& measured) {
  Ceilings m = measured;
  for (auto& c : m.compute)
    for (const auto& old : stored.compute)
      if (old.name == c.name && old.flops_per_s > c.flops_per_s) c.flops_per_s = old.flops_per_s;
  for (auto& b : m.bandwidth)
    for (const auto& old : stored.bandwidth)
      if (old.level == b.level && old.bytes_per_s > b.bytes_per_s) b.bytes_per_s = old.bytes_per_s;
  for (auto& l : m.links)
    for (const auto& old : stored.links)
      if (old.name == l.name && old.bytes_per_s > l.bytes_per_s) l.bytes_per_s = old.bytes_per_s;
  // A link this device cannot measure (the network to other hosts, given by hand) stays.
  for (const auto& old : stored.links)
    if (std::none_of(m.links.begin(), m.links.end(), [&](const LinkCeiling& l) { return l.name == old.name; }))
      m.links.push_back(old);
  if (stored.dispatch_latency_s > 0 && (m.dispatch_latency_s <= 0 || stored.dispatch_latency_s < m.dispatch_latency_s))
    m.dispatch_latency_s = stored.dispatch_latency_s;
  return m;
}

ojson ceilings_to_json(const Ceilings& c) {
  ojson j;
  j["compute"] = ojson::array();
  for (const auto& x : c.compute)
    j["compute"].push_back({{"name", x.name}, {"dtype", x.dtype}, {"unit", x.unit}, {"flops_per_s", x.flops_per_s}});
  j["bandwidth"] = ojson::array();
  for (const auto& x : c.bandwidth)
    j["bandwidth"].push_back({{"level", x.level}, {"bytes_per_s", x.bytes_per_s}, {"capacity_bytes", x.capacity_bytes}});
  j["links"] = ojson::array();
  for (const auto& x : c.links) j["links"].push_back({{"name", x.name}, {"bytes_per_s", x.bytes_per_s}});
  j["dispatch_latency_s"] = c.dispatch_latency_s;
  return j;
}

ojson profile_to_json(const DeviceProfile& p) {
  ojson j;
  j["format"] = kProfileFormat;
  j["version"] = kProfileVersion;
  j["backend"] = p.backend;
  j["fingerprint"] = p.fingerprint;
  j["created"] = p.created;
  j["rooftop_version"] = p.rooftop_version;
  j["threads"] = p.threads;
  j["device"] = p.device;
  j["measured"] = ceilings_to_json(p.measured);
  j["bandwidth_sweep"] = ojson::array();
  for (const auto& s : p.bandwidth_sweep)
    j["bandwidth_sweep"].push_back({{"working_set_bytes", s.working_set_bytes}, {"bytes_per_s", s.bytes_per_s}});
  if (p.datasheet) {
    ojson d = ceilings_to_json(p.datasheet->ceilings);
    d["name"] = p.datasheet->name;
    d["source"] = p.datasheet->source;
    d["tdp_w"] = p.datasheet->tdp_w;
    j["datasheet"] = std::move(d);
  } else {
    j["datasheet"] = nullptr;
  }
  if (!p.trials.is_null()) j["trials"] = p.trials;
  if (!p.conditions.is_null()) j["conditions"] = p.conditions;
  if (!p.raised.is_null()) j["raised"] = p.raised;
  return j;
}

DeviceProfile profile_from_json(const json& j, const std::string& origin) {
  if (!j.is_object()) throw InputError(origin + ": not a rooftop device profile (not a JSON object)");
  if (!j.contains("format") || j["format"] != kProfileFormat)
    throw InputError(fmt::format("{}: not a rooftop device profile (field 'format' is not \"{}\")", origin, kProfileFormat));
  const auto& version = member(j, "version", origin, "");
  if (!version.is_number_integer() || version.get<int>() != kProfileVersion)
    throw InputError(fmt::format("{}: device profile version {} is not supported (this rooftop reads version {}); "
                                 "re-run `rooftop characterize`", origin, quote_json(version), kProfileVersion));
  DeviceProfile p;
  p.backend = text(j, "backend", origin, "");
  p.fingerprint = text(j, "fingerprint", origin, "");
  p.created = text(j, "created", origin, "");
  p.rooftop_version = text(j, "rooftop_version", origin, "");
  p.threads = static_cast<int>(positive(j, "threads", origin, ""));
  p.device = member(j, "device", origin, "");
  p.measured = ceilings_from_json(member(j, "measured", origin, ""), origin, "measured.");
  if (p.measured.compute.empty() && p.measured.bandwidth.empty())
    bad(origin, "measured", "holds no ceiling");
  // A roofline needs both roofs: with one alone every result's placement would be empty.
  if (p.measured.compute.empty() != p.measured.bandwidth.empty())
    bad(origin, "measured", p.measured.compute.empty()
                                ? "has bandwidth ceilings but no compute ceiling (run `rooftop characterize` again)"
                                : "has compute ceilings but no bandwidth ceiling (run `rooftop characterize` again)");
  if (j.contains("bandwidth_sweep")) {
    const auto& sweep = j["bandwidth_sweep"];
    if (!sweep.is_array()) bad(origin, "bandwidth_sweep", "is not an array");
    for (std::size_t i = 0; i < sweep.size(); ++i) {
      const std::string path = fmt::format("bandwidth_sweep[{}].", i);
      p.bandwidth_sweep.push_back({positive(sweep[i], "working_set_bytes", origin, path),
                                   positive(sweep[i], "bytes_per_s", origin, path)});
    }
  }
  if (j.contains("datasheet") && !j["datasheet"].is_null()) p.datasheet = datasheet_from_json(j["datasheet"], origin, "datasheet.");
  // Kept as written: what they record is for people, no ceiling is derived from them.
  if (j.contains("trials")) p.trials = j["trials"];
  if (j.contains("conditions")) p.conditions = j["conditions"];
  if (j.contains("raised")) {
    if (!j["raised"].is_array()) bad(origin, "raised", "is not an array");
    p.raised = j["raised"];
  }
  return p;
}

Datasheet datasheet_from_json(const nlohmann::ordered_json& d, const std::string& origin, const std::string& path) {
  return {text(d, "name", origin, path), text(d, "source", origin, path), ceilings_from_json(d, origin, path),
          d.contains("tdp_w") ? positive(d, "tdp_w", origin, path, true) : 0.0};
}

DeviceProfile load_profile(const std::filesystem::path& path) {
  return profile_from_json(read_json_file(path, "device profile"), path.string());
}

Datasheet load_datasheet(const std::filesystem::path& path) {
  return datasheet_from_json(read_json_file(path, "datasheet"), path.string(), "");
}

void save_profile(const std::filesystem::path& path, const DeviceProfile& profile) {
  write_file_atomically(path, profile_to_json(profile).dump(2) + "\n");
}

}  // namespace rooftop
