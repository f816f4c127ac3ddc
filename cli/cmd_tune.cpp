// `rooftop tune`: for every tunable point of a run (Family::tile_candidates), time its default
// and each candidate tile, checked against the reference as `run` checks them, and keep the
// fastest (the default unless a candidate beats it beyond noise) in this device's tuning
// file ($ROOFTOP_HOME/tuning/<fingerprint>.json) with every candidate's median, which
// `rooftop run` then uses.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <random>

#include "cli/commands.hpp"
#include "cli/number_options.hpp"
#include "harness/backend.hpp"
#include "harness/errors.hpp"
#include "harness/gate_statistics.hpp"
#include "harness/exit_codes.hpp"
#include "harness/name_filter.hpp"
#include "harness/registry.hpp"
#include "harness/runner.hpp"
#include "harness/statistics.hpp"
#include "harness/tier.hpp"
#include "harness/units.hpp"
#include "harness/tuning_cache.hpp"
#include "harness/version.hpp"

namespace rooftop::cli {
namespace {

struct TuneFlags {
  RunOptions options;
  std::string tier = "quick";
  double min_time = 0;
};

// A candidate replaces the default only when it is faster beyond noise: a two-sided
// Mann-Whitney p below this on the samples of both, and a median at least kMinGain lower.
// Picking the least of a dozen noisy medians would otherwise "tune" to luck.
constexpr double kSignificance = 0.05, kMinGain = 0.02;

// One candidate of one point: the point alone, with this tile, checked and timed.
TileCandidate measure(const RunOptions& base, const Backend& backend, const Problem& point, const std::string& tile,
                      std::vector<double>& samples) {
  RunOptions o = base;
  o.filter = exact_names_pattern({point.name()});
  o.tiles = {{point.name(), {tile, "candidate"}}};
  RunMetadata meta;
  meta.backend = backend.name();
  meta.fingerprint = backend.fingerprint();
  meta.tier = tier_name(o.tier);
  bool interrupted = false;
  const auto results = run_points(o, backend, std::move(meta), nullptr, interrupted);
  if (interrupted) throw Interrupted("interrupted (Ctrl-C): nothing written");
  TileCandidate c{tile, "error", 0, "not measured"};
  for (const auto& r : results.results) {
    c.status = std::string(status_name(r.status));
    c.reason = r.reason;
    if (r.status == Status::ok && !r.samples.empty()) {
      samples = r.seconds();
      c.median_s = median(samples);
    }
  }
  return c;
}

int execute_tune(TuneFlags& f) {
  auto& o = f.options;
  o.tier = parse_tier(f.tier);
  if (f.min_time > 0) o.min_time_s = f.min_time;
  o.seed = std::random_device{}();
  const auto& backend = find_backend(o.backend);
  if (runs_in_lockstep(o)) throw InputError("tune: collectives have no tiles to tune; name --suite attention");
  std::vector<Problem> tunable;
  for (const auto& p : plan_points(o, backend.available_memory_bytes())) {
    const Family* family = family_named(p.family);
    if (family && family->tile_candidates && !family->tile_candidates(p).empty()) tunable.push_back(p);
  }
  if (tunable.empty()) {
    fmt::print(stderr, "rooftop: nothing to tune: no point of this run has tile candidates on the {} backend (the CPU "
                       "attention prefill in fp32, and in bf16 on a CPU with bf16 units, has)\n", backend.name());
    return kExitUsage;
  }
  const auto path = tuning_cache_path(backend.fingerprint());
  // A broken file, or one that cannot be written, is said now, not after minutes of timing.
  try {
    load_tuning(path, backend.fingerprint());
  } catch (const TuningOfAnotherDevice& e) {
    fmt::print(stderr, "rooftop: warning: {} (this tuning replaces the file)\n", e.what());
  }
  check_tuning_writable(path);
  std::map<std::string, TunedPoint> chosen;
  std::vector<std::string> dropped;  // points tuned before whose tuning could not run now
  std::size_t width = 5;
  for (const auto& p : tunable) width = std::max(width, p.name().size());
  fmt::print("{:<{}}  {:>10}  {:>10}  {:>8}  {}\n", "point", width, "default", "chosen", "speed-up", "tile");
  for (const auto& p : tunable) {
    TunedPoint t;
    t.tuned_at = utc_now_iso8601();
    t.rooftop_version = kVersion;
    std::vector<std::string> tiles{""};
    for (const auto& tile : family_named(p.family)->tile_candidates(p)) tiles.push_back(tile);
    // The default is measured first and again last: a machine that drifts while the
    // candidates run would otherwise credit its drift to the tile that ran when it was fast.
    tiles.push_back("");
    std::vector<std::vector<double>> samples(tiles.size());
    int ran = 0, best = -1;  // best: the fastest candidate that ran and passed its check
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      t.candidates.push_back(measure(o, backend, p, tiles[i], samples[i]));
      const auto& c = t.candidates.back();
      if (c.status != "ok" || c.median_s <= 0) continue;  // a candidate that fails its check cannot win
      if (i + 1 < tiles.size()) ++ran;
      if (!tiles[i].empty() && (best < 0 || c.median_s < t.candidates[static_cast<std::size_t>(best)].median_s))
        best = static_cast<int>(i);
    }
    std::vector<double> fallback_samples = samples.front();
    fallback_samples.insert(fallback_samples.end(), samples.back().begin(), samples.back().end());
    const double fallback = fallback_samples.empty() ? 0.0 : median(fallback_samples);
    double fastest_default = fallback;
    for (const auto& c : {t.candidates.front(), t.candidates.back()})
      if (c.median_s > 0) fastest_default = std::min(fastest_default, c.median_s);
    // The default stays unless the fastest candidate beats both of its measurements beyond
    // noise; where the default itself did not run, the fastest candidate that did.
    int choice = 0;
    const bool default_failed = t.candidates.front().status == "failed" || t.candidates.back().status == "failed";
    if (best > 0 && !default_failed) {
      const auto& b = t.candidates[static_cast<std::size_t>(best)];
      if (fallback <= 0 || (b.median_s < (1 - kMinGain) * fastest_default &&
                            mann_whitney_p(fallback_samples, samples[static_cast<std::size_t>(best)]) < kSignificance))
        choice = best;
    }
    t.tile = tiles[static_cast<std::size_t>(choice)];
    // A default that fails its check is a bug to see, not a tile to tune around; a point no
    // tile ran for keeps no choice (an older one is dropped).
    if (!ran || default_failed) {
      fmt::print("{:<{}}  not tuned: {}\n", p.name(), width,
                 default_failed ? "its default failed its check (" + t.candidates.front().reason + ")"
                                : "no candidate ran (" + t.candidates.front().reason + ")");
      dropped.push_back(p.name());
      continue;
    }
    const double chosen_s = choice > 0 ? t.candidates[static_cast<std::size_t>(choice)].median_s : fallback;
    fmt::print("{:<{}}  {:>10}  {:>10}  {:>8}  {} ({} of {} ran)\n", p.name(), width, fallback > 0 ? format_duration(fallback) : "-",
               format_duration(chosen_s), fallback > 0 ? fmt::format("x{:.2f}", fallback / chosen_s) : "-",
               t.tile.empty() ? "default" : t.tile, ran, tiles.size() - 1);
    chosen[p.name()] = std::move(t);
  }
  save_tuning(path, backend.fingerprint(), chosen, dropped);
  if (chosen.empty()) return kExitFailure;
  fmt::print(stderr, "rooftop: wrote {} ({} point(s)); `rooftop run` on this device uses it\n", path.string(), chosen.size());
  return kExitOk;
}

}  // namespace

void add_tune_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("tune", "Time each tunable point's candidate tiles on this device and keep the fastest "
                                         "checked one for `run`");
  auto flags = std::make_shared<TuneFlags>();
  auto& o = flags->options;
  o.repetitions = 5;
  cmd->add_option("--suite", o.suites, "Suites (attention has tiles)")->delimiter(',')->required();
  cmd->add_option("--backend", o.backend, "Backend")->capture_default_str();
  cmd->add_option("--tier", flags->tier, "smoke, quick or full: whose points to tune")->capture_default_str();
  cmd->add_option("--filter", o.filter, "Regular expression searched in point names");
  cmd->add_option("--dtype", o.dtypes, "Only these dtypes")->delimiter(',');
  cmd->add_option("--shape", o.shapes, "These shapes instead of the tier's sweep")->delimiter(',');
  cmd->add_option("--repetitions", o.repetitions, "Repetitions per candidate")->capture_default_str()->check(CLI::Range(1, 1000));
  cmd->add_option("--min-time", flags->min_time, "Seconds per repetition (default set by the tier)")
      ->check(finite_positive());
  cmd->callback([flags, &exit_code] { exit_code = execute_tune(*flags); });
}

}  // namespace rooftop::cli
