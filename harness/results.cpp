#include "harness/results.hpp"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

#include "harness/atomic_file.hpp"
#include "harness/derived.hpp"
#include "harness/errors.hpp"
#include "harness/input_file.hpp"
#include "harness/printable_text.hpp"
#include "harness/json_file.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {
using json = nlohmann::ordered_json;
using ojson = nlohmann::ordered_json;

[[noreturn]] void bad(const std::string& origin, const std::string& field, const std::string& what) {
  throw InputError(fmt::format("{}: field '{}' {}", origin, field, what));
}

const json& need(const json& j, const char* key, const std::string& origin, const std::string& path) {
  if (!j.is_object() || !j.contains(key)) bad(origin, path + key, "is missing");
  return j.at(key);
}

template <typename T>
T get(const json& j, const char* key, const std::string& origin, const std::string& path) {
  try {
    return need(j, key, origin, path).get<T>();
  } catch (const json::type_error&) {
    bad(origin, path + key, "has the wrong type");
  }
}

// JSON has no infinity or NaN: such a value (an error against a NaN output) is written as null.
ojson number_or_null(double x) { return std::isfinite(x) ? ojson(x) : ojson(nullptr); }
double number_or_infinity(const json& v, const std::string& origin, const std::string& field) {
  if (v.is_null()) return std::numeric_limits<double>::infinity();
  if (!v.is_number()) bad(origin, field, "is not a number");
  return v.get<double>();
}

ojson correctness_to_json(const Correctness& c) {
  return {{"passed", c.passed},
          {"elements_checked", c.elements_checked},
          {"elements_total", c.elements_total},
          {"max_abs_error", number_or_null(c.max_abs_error)},
          {"max_error_ratio", number_or_null(c.max_error_ratio)},
          {"tolerance", c.tolerance},
          {"worst_element", c.worst_element}};
}

Correctness correctness_from_json(const json& j, const std::string& origin, const std::string& p) {
  Correctness c;
  c.passed = get<bool>(j, "passed", origin, p);
  c.elements_checked = get<std::uint64_t>(j, "elements_checked", origin, p);
  c.elements_total = get<std::uint64_t>(j, "elements_total", origin, p);
  c.max_abs_error = number_or_infinity(need(j, "max_abs_error", origin, p), origin, p + "max_abs_error");
  c.max_error_ratio = number_or_infinity(need(j, "max_error_ratio", origin, p), origin, p + "max_error_ratio");
  c.tolerance = get<std::string>(j, "tolerance", origin, p);
  c.worst_element = get<std::string>(j, "worst_element", origin, p);
  return c;
}

// The params a file shows: a stage record's own, the suite's, then what the harness learned
// while measuring, in the order the keys were always written.
ojson params_to_json(const ResultRecord& r) {
  const auto& m = r.measured;
  ojson j = ojson::object();
  if (m.is_stage()) j = {{"stage", m.stage}, {"of", m.of}, {"timing", m.timing}};
  if (r.problem.params.is_object())
    for (const auto& [key, value] : r.problem.params.items()) j[key] = value;
  // The runner's tile replaces the shape's own "tile" where the suite has one, in place.
  if (!r.problem.tile.empty()) j["tile"] = r.problem.tile;
  if (!r.problem.tile_source.empty()) j["tile_source"] = r.problem.tile_source;
  if (!m.cache.empty()) j["cache"] = m.cache;
  if (!m.link.empty()) {
    j["link"] = m.link;
    j["link_bytes_per_s"] = m.link_bytes_per_s;
  }
  return j;
}

// The reverse: the harness's facts out of a file's params, the suite's left in.
MeasurementFacts take_measurement_facts(json& params, const std::string& origin, const std::string& p) {
  MeasurementFacts m;
  if (!params.is_object()) return m;
  const auto take_text = [&](const char* key, std::string& into) {
    if (!params.contains(key)) return;
    if (!params[key].is_string()) bad(origin, p + "params." + key, "is not a string");
    into = params[key].get<std::string>();
    params.erase(key);
  };
  if (params.contains("stage")) {
    take_text("stage", m.stage);
    take_text("of", m.of);
    take_text("timing", m.timing);
  }
  take_text("cache", m.cache);
  take_text("link", m.link);
  if (params.contains("link_bytes_per_s")) {
    if (!params["link_bytes_per_s"].is_number()) bad(origin, p + "params.link_bytes_per_s", "is not a number");
    m.link_bytes_per_s = params["link_bytes_per_s"].get<double>();
    params.erase("link_bytes_per_s");
  }
  return m;
}

// The runner's tile out of a file's params: its source taken out, the tile itself left in as
// well (the suite's "tile" where it has one), so writing the record again gives the same bytes.
void take_tile(Problem& problem, const std::string& origin, const std::string& p) {
  auto& params = problem.params;
  if (!params.is_object() || !params.contains("tile_source")) return;
  if (!params["tile_source"].is_string()) bad(origin, p + "params.tile_source", "is not a string");
  problem.tile_source = params["tile_source"].get<std::string>();
  params.erase("tile_source");
  if (params.contains("tile") && params["tile"].is_string()) problem.tile = params["tile"].get<std::string>();
}

}  // namespace

DeclaredFacts declared_facts(const nlohmann::ordered_json& params) {
  DeclaredFacts d;
  if (!params.is_object()) return d;
  const auto number = [&](const char* key) {
    return params.contains(key) && params[key].is_number() ? params[key].get<double>() : 0.0;
  };
  const auto text = [&](const char* key) {
    return params.contains(key) && params[key].is_string() ? params[key].get<std::string>() : std::string();
  };
  d.bus_factor = number("bus_factor");
  d.tokens_per_iteration = number("tokens_per_iteration");
  d.collective = text("collective");
  d.size_bytes = number("size_bytes");
  d.ranks = static_cast<int>(number("ranks"));
  d.in_place = params.contains("in_place") && params["in_place"].is_boolean() && params["in_place"].get<bool>();
  d.scenario = text("scenario");
  d.slo_ttft_s = number("slo_ttft_s");
  d.slo_tpot_s = number("slo_tpot_s");
  const auto whole = [&](const char* key) { return params.contains(key) && params[key].is_number_integer(); };
  if (whole("m") && whole("n") && whole("k"))
    d.matrix = MatrixSizes{params["m"].get<std::int64_t>(), params["n"].get<std::int64_t>(), params["k"].get<std::int64_t>()};
  return d;
}

ResultRecord record_of(Problem problem) {
  ResultRecord r;
  r.declared = declared_facts(problem.params);
  r.problem = std::move(problem);
  return r;
}

void derive_record(ResultRecord& record, const Ceilings* ceilings) { record.derived = derive(record, ceilings); }

void derive_records(RunResults& run) {
  const Ceilings* ceilings = run.meta.ceilings ? &*run.meta.ceilings : nullptr;
  for (auto& r : run.results) derive_record(r, ceilings);
}

const Derived& derived_of(const ResultRecord& record) {
  if (!record.derived)
    throw std::logic_error(record.problem.name() + ": its derived numbers were never computed (derive_record)");
  return *record.derived;
}

bool slow_generic_path(const ResultRecord& r) {
  const auto& roof = derived_of(r).roofline;
  return !r.generic_path.empty() && roof && roof->fraction_of_attainable < kSlowGenericPathFraction;
}

std::string_view status_name(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::skipped: return "skipped";
    case Status::failed: return "failed";
    case Status::error: return "error";
  }
  return "?";
}

Status parse_status(std::string_view text) {
  for (Status s : {Status::ok, Status::skipped, Status::failed, Status::error})
    if (status_name(s) == text) return s;
  throw InputError(fmt::format("unknown result status '{}'", printable_text(text)));
}

ojson record_to_json(const ResultRecord& r) {
  ojson j;
  j["name"] = r.problem.name();
  j["family"] = r.problem.family;
  j["backend"] = r.problem.backend;
  j["dtype"] = dtype_name(r.problem.dtype);
  j["shape"] = r.problem.shape;
  j["params"] = params_to_json(r);
  j["implementation"] = r.implementation;
  j["implementation_label"] = r.implementation_label.empty() ? r.implementation : r.implementation_label;
  j["generic_path"] = r.generic_path.empty() ? ojson(nullptr) : ojson(r.generic_path);
  j["status"] = status_name(r.status);
  j["reason"] = r.reason;
  j["work"] = {{"flops", r.problem.work.flops},
               {"bytes", r.problem.work.bytes},
               {"arithmetic_intensity", r.problem.work.arithmetic_intensity()},
               {"memory_bytes", r.problem.memory_bytes}};
  ojson samples = {{"seconds_per_iteration", ojson::array()}, {"iterations", ojson::array()}, {"clock_mhz", ojson::array()}};
  const bool energy = std::any_of(r.samples.begin(), r.samples.end(), [](const Sample& s) { return s.energy_j > 0; });
  if (energy) samples["energy_j"] = samples["wall_s"] = ojson::array();
  for (const auto& s : r.samples) {
    samples["seconds_per_iteration"].push_back(s.seconds_per_iteration);
    samples["iterations"].push_back(s.iterations);
    samples["clock_mhz"].push_back(s.clock_mhz);
    if (energy) {
      samples["energy_j"].push_back(s.energy_j);
      samples["wall_s"].push_back(s.wall_s);
    }
  }
  j["samples"] = std::move(samples);
  if (!r.metrics.empty()) {
    ojson metrics = ojson::object();
    for (const auto& [name, values] : r.metrics) metrics[name] = values;
    j["metrics"] = std::move(metrics);
  }
  if (!r.outputs.is_null()) j["outputs"] = r.outputs;
  const Derived& d = derived_of(r);
  j["summary"] = nullptr;
  j["throughput"] = nullptr;
  j["roofline"] = nullptr;
  if (const auto& s = d.summary) {
    j["summary"] = {{"repetitions", s->count}, {"median_s", s->median}, {"min_s", s->min},
                    {"max_s", s->max}, {"mean_s", s->mean}, {"iqr_s", s->iqr}, {"cv", s->cv},
                    {"median_ci_s", {s->median_ci.low, s->median_ci.high}},
                    {"median_ci_coverage", s->median_ci.coverage}};
  }
  if (const auto& t = d.throughput) {
    j["throughput"] = {{"flops_per_s", t->flops_per_s}, {"bytes_per_s", t->bytes_per_s}};
    if (t->bus_bytes_per_s) j["throughput"]["bus_bytes_per_s"] = *t->bus_bytes_per_s;
    if (t->link) {
      j["throughput"]["link"] = t->link->link;
      j["throughput"]["link_bytes_per_s"] = t->link->link_bytes_per_s;
      j["throughput"]["percent_of_link"] = t->link->percent;
    }
  }
  if (const auto& p = d.roofline) {
    j["roofline"] = {{"compute_ceiling", p->compute_ceiling},
                     {"compute_peak_flops_per_s", p->compute_peak},
                     {"memory_level", p->memory_level},
                     {"bandwidth_bytes_per_s", p->bandwidth},
                     {"ridge_intensity", number_or_null(p->ridge_intensity)},
                     {"attainable_flops_per_s", p->attainable_flops},
                     {"percent_of_attainable", 100.0 * p->fraction_of_attainable},
                     {"bound", bound_name(p->bound)},
                     {"above_ceiling", p->above_ceiling},
                     {"stream_level", p->stream_level},
                     {"percent_of_stream_level", 100.0 * p->fraction_of_stream},
                     {"slow_generic_path", slow_generic_path(r)}};
  }
  if (const auto& w = d.power) {
    j["power"] = {{"board_w", w->board_w}, {"joules_per_iteration", w->joules_per_iteration},
                  {"flops_per_watt", w->flops_per_watt},
                  {"joules_per_token", w->joules_per_token ? ojson(*w->joules_per_token) : ojson(nullptr)}};
  }
  j["correctness"] = r.correctness ? correctness_to_json(*r.correctness) : ojson(nullptr);
  return j;
}

ojson results_to_json(const RunResults& run) {
  const auto& m = run.meta;
  ojson j;
  j["schema"] = kResultsSchemaVersion;
  j["rooftop"] = {{"version", m.rooftop_version}, {"git_commit", m.git_commit}};
  j["created"] = m.created;
  j["complete"] = m.complete;
  if (m.injected_slowdown)
    j["injected_slowdown"] = {{"fraction", m.injected_slowdown->fraction},
                              {"match", m.injected_slowdown->match.empty() ? ojson(nullptr) : ojson(m.injected_slowdown->match)}};
  j["command"] = m.command;
  j["tier"] = m.tier;
  j["seed"] = m.seed;
  j["host"] = m.host;
  j["device"] = {{"backend", m.backend}, {"fingerprint", m.fingerprint}, {"properties", m.device}};
  j["ceilings"] = {{"source", m.ceilings_source},
                   {"measured", m.ceilings ? ceilings_to_json(*m.ceilings) : ojson(nullptr)},
                   {"datasheet", nullptr}};
  if (m.datasheet) {
    ojson d = ceilings_to_json(m.datasheet->ceilings);
    d["name"] = m.datasheet->name;
    d["source"] = m.datasheet->source;
    d["tdp_w"] = m.datasheet->tdp_w;
    j["ceilings"]["datasheet"] = std::move(d);
  }
  if (!m.conditions.is_null()) j["conditions"] = m.conditions;
  j["results"] = ojson::array();
  for (const auto& r : run.results) j["results"].push_back(record_to_json(r));
  return j;
}

RunResults results_from_json(const json& j, const std::string& origin) {
  if (!j.is_object() || !j.contains("schema"))
    throw InputError(origin + ": not a rooftop results file (no 'schema' field)");
  if (!j["schema"].is_number_integer() || j["schema"].get<int>() != kResultsSchemaVersion)
    throw InputError(fmt::format("{}: results schema {} is not supported (this rooftop reads schema {})",
                                 origin, quote_json(j["schema"]), kResultsSchemaVersion));
  RunResults run;
  auto& m = run.meta;
  const auto& rooftop = need(j, "rooftop", origin, "");
  m.rooftop_version = get<std::string>(rooftop, "version", origin, "rooftop.");
  m.git_commit = get<std::string>(rooftop, "git_commit", origin, "rooftop.");
  m.created = get<std::string>(j, "created", origin, "");
  m.complete = get<bool>(j, "complete", origin, "");
  // Absent from a run timed as it runs, and from every file written before it was kept.
  if (j.contains("injected_slowdown") && !j["injected_slowdown"].is_null()) {
    const auto& x = j["injected_slowdown"];
    if (!x.is_object()) bad(origin, "injected_slowdown", "is not an object");
    const auto& fraction = need(x, "fraction", origin, "injected_slowdown.");
    InjectedSlowdown injected;
    injected.fraction = fraction.is_number() ? fraction.get<double>() : 0.0;
    if (!(injected.fraction > 0) || !std::isfinite(injected.fraction))
      bad(origin, "injected_slowdown.fraction", "is not a fraction above 0");
    if (x.contains("match") && !x["match"].is_null()) injected.match = get<std::string>(x, "match", origin, "injected_slowdown.");
    m.injected_slowdown = injected;
  }
  m.command = get<std::string>(j, "command", origin, "");
  m.tier = get<std::string>(j, "tier", origin, "");
  m.seed = get<std::uint64_t>(j, "seed", origin, "");
  m.host = need(j, "host", origin, "");
  const auto& device = need(j, "device", origin, "");
  m.backend = get<std::string>(device, "backend", origin, "device.");
  m.fingerprint = get<std::string>(device, "fingerprint", origin, "device.");
  m.device = need(device, "properties", origin, "device.");
  const auto& ceilings = need(j, "ceilings", origin, "");
  m.ceilings_source = get<std::string>(ceilings, "source", origin, "ceilings.");
  // Ceilings are re-read through the profile parser, which validates every field.
  if (!need(ceilings, "measured", origin, "ceilings.").is_null()) {
    json as_profile = {{"format", kProfileFormat}, {"version", kProfileVersion}, {"backend", m.backend},
                       {"fingerprint", m.fingerprint}, {"created", m.created}, {"rooftop_version", m.rooftop_version},
                       {"threads", 1}, {"device", m.device}, {"measured", ceilings["measured"]},
                       {"datasheet", ceilings.value("datasheet", json(nullptr))}};
    const auto profile = profile_from_json(as_profile, origin + " (ceilings)");
    m.ceilings = profile.measured;
    m.datasheet = profile.datasheet;
  } else if (ceilings.contains("datasheet") && !ceilings["datasheet"].is_null()) {
    // Not characterized, but the datasheet is known: the report still draws its roofs
    // and the collectives their link (issue 20).
    m.datasheet = datasheet_from_json(ceilings["datasheet"], origin, "ceilings.datasheet.");
  }
  if (j.contains("conditions") && j["conditions"].is_object()) m.conditions = j["conditions"];
  const auto& results = need(j, "results", origin, "");
  if (!results.is_array()) bad(origin, "results", "is not an array");
  std::set<std::string> names;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& x = results[i];
    const std::string p = fmt::format("results[{}].", i);
    ResultRecord r;
    r.problem.family = get<std::string>(x, "family", origin, p);
    r.problem.backend = get<std::string>(x, "backend", origin, p);
    const auto dtype = get<std::string>(x, "dtype", origin, p);
    try {
      r.problem.dtype = parse_dtype(dtype);
    } catch (const InputError& e) {
      bad(origin, p + "dtype", e.what());
    }
    r.problem.shape = get<std::string>(x, "shape", origin, p);
    r.problem.params = need(x, "params", origin, p);
    r.measured = take_measurement_facts(r.problem.params, origin, p);
    take_tile(r.problem, origin, p);
    r.declared = declared_facts(r.problem.params);
    const auto& work = need(x, "work", origin, p);
    r.problem.work.flops = get<double>(work, "flops", origin, p + "work.");
    r.problem.work.bytes = get<double>(work, "bytes", origin, p + "work.");
    r.problem.memory_bytes = get<double>(work, "memory_bytes", origin, p + "work.");
    for (const auto& [key, v] : {std::pair{"flops", r.problem.work.flops}, {"bytes", r.problem.work.bytes},
                                 {"memory_bytes", r.problem.memory_bytes}})
      if (!(v >= 0) || !std::isfinite(v)) bad(origin, p + "work." + key, "is not a finite count >= 0");
    if (!names.insert(r.problem.name()).second)
      bad(origin, p + "name", fmt::format("repeats benchmark {}: a file holds each benchmark once", r.problem.name()));
    r.implementation = get<std::string>(x, "implementation", origin, p);
    r.implementation_label = x.value("implementation_label", r.implementation);  // absent before schema 1.x files
    if (x.contains("generic_path") && x["generic_path"].is_string()) r.generic_path = x["generic_path"].get<std::string>();
    if (x.contains("outputs")) r.outputs = x["outputs"];
    try {
      r.status = parse_status(get<std::string>(x, "status", origin, p));
    } catch (const InputError&) {
      bad(origin, p + "status", "is not one of ok, skipped, failed, error");
    }
    r.reason = get<std::string>(x, "reason", origin, p);
    const auto& samples = need(x, "samples", origin, p);
    const auto secs = get<std::vector<double>>(samples, "seconds_per_iteration", origin, p + "samples.");
    const auto iters = get<std::vector<std::int64_t>>(samples, "iterations", origin, p + "samples.");
    const auto clocks = get<std::vector<double>>(samples, "clock_mhz", origin, p + "samples.");
    // Energy: absent in files from devices without a counter (and from builds before it).
    std::vector<double> joules(secs.size(), 0.0), walls(secs.size(), 0.0);
    if (samples.contains("energy_j") || samples.contains("wall_s")) {
      joules = get<std::vector<double>>(samples, "energy_j", origin, p + "samples.");
      walls = get<std::vector<double>>(samples, "wall_s", origin, p + "samples.");
    }
    if (iters.size() != secs.size() || clocks.size() != secs.size() || joules.size() != secs.size() ||
        walls.size() != secs.size())
      bad(origin, p + "samples", "has arrays of different lengths");
    for (std::size_t k = 0; k < secs.size(); ++k) {
      if (!(secs[k] > 0) || !std::isfinite(secs[k]))
        bad(origin, fmt::format("{}samples.seconds_per_iteration[{}]", p, k), "is not a positive time");
      if (!(secs[k] >= kMinSecondsPerIteration && secs[k] <= kMaxSecondsPerIteration))
        bad(origin, fmt::format("{}samples.seconds_per_iteration[{}]", p, k),
            fmt::format("is {:g} s, outside [{:g}, {:g}] s (a picosecond to 11.6 days): not a time a run measures",
                        secs[k], kMinSecondsPerIteration, kMaxSecondsPerIteration));
      if (iters[k] <= 0) bad(origin, fmt::format("{}samples.iterations[{}]", p, k), "is not a positive count");
      if (!(clocks[k] >= 0) || !std::isfinite(clocks[k]))
        bad(origin, fmt::format("{}samples.clock_mhz[{}]", p, k), "is not a clock >= 0 (0: unknown)");
      if (!(joules[k] >= 0) || !std::isfinite(joules[k]) || !(walls[k] >= 0) || !std::isfinite(walls[k]))
        bad(origin, fmt::format("{}samples.energy_j[{}]", p, k), "or its wall_s is not a finite value >= 0 (0: not measured)");
      r.samples.push_back({secs[k], iters[k], clocks[k], joules[k], walls[k]});
    }
    if (r.status == Status::ok && r.samples.empty())
      bad(origin, p + "samples", "is empty, but the status is ok: a measured point has its samples");
    if (x.contains("metrics")) {
      const auto& metrics = x["metrics"];
      if (!metrics.is_object()) bad(origin, p + "metrics", "is not an object of arrays");
      for (const auto& [name, values] : metrics.items()) {
        const auto field = p + "metrics." + name;
        if (!values.is_array()) bad(origin, field, "is not an array of numbers");
        std::vector<double> v;
        for (const auto& e : values) {
          if (!e.is_number() || !std::isfinite(e.get<double>())) bad(origin, field, "holds a value that is not a finite number");
          v.push_back(e.get<double>());
        }
        if (v.size() != r.samples.size()) bad(origin, field, "has not one value a repetition");
        r.metrics.emplace_back(name, std::move(v));
      }
    }
    if (!need(x, "correctness", origin, p).is_null())
      r.correctness = correctness_from_json(x["correctness"], origin, p + "correctness.");
    run.results.push_back(std::move(r));
  }
  derive_records(run);
  return run;
}

RunResults load_results(const std::filesystem::path& path) {
  return results_from_json(read_json_file(path, "results file"), path.string());
}

void save_results(const std::filesystem::path& path, const RunResults& run) {
  write_file_atomically(path, results_to_json(run).dump(2) + "\n");
}

std::string utc_now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

ojson host_properties() {
  utsname u{};
  ::uname(&u);
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return {{"hostname", name}, {"os", u.sysname}, {"kernel", u.release}, {"arch", u.machine}};
}

}  // namespace rooftop
