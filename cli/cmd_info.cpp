// `rooftop list` and `rooftop info`: what this build can run, and on what device.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "harness/backend.hpp"
#include "cli/commands.hpp"
#include "cli/profile_lookup.hpp"
#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "harness/paths.hpp"
#include "harness/registry.hpp"
#include "harness/runner.hpp"

namespace rooftop::cli {

void add_list_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("list", "List suites, backends and tiers; with --suite, the points of a tier");
  auto suite = std::make_shared<std::string>();
  auto backend = std::make_shared<std::string>("cpu");
  auto tier = std::make_shared<std::string>("quick");
  cmd->add_option("--suite", *suite, "List the points of this suite");
  cmd->add_option("--backend", *backend, "Backend of the points listed")->capture_default_str();
  cmd->add_option("--tier", *tier, "Tier of the points listed: smoke, quick, full")->capture_default_str();
  auto ranks = std::make_shared<int>(1);
  cmd->add_option("--ranks", *ranks, "Ranks of a multi-rank suite's points (collectives)")
      ->capture_default_str()->check(CLI::Range(1, 1024));
  cmd->callback([=, &exit_code] {
    if (suite->empty()) {
      fmt::print("suites:\n");
      for (const auto& f : families()) {
        std::vector<std::string_view> dtypes;
        for (Dtype d : f.dtypes) dtypes.push_back(dtype_name(d));
        fmt::print("  {:<12} {}\n  {:<12} backends: {}; dtypes: {}; measured: {}; shapes: {}\n", f.name, f.description, "",
                   fmt::join(family_backends(f.name), ", "), fmt::join(dtypes, ", "), measurement_name(f.measurement),
                   f.shape_syntax);
      }
      fmt::print("backends (this build):");
      for (const auto& b : backends()) fmt::print(" {}", b->name());
      fmt::print("\ntiers: smoke (seconds), quick (about a minute a suite on a CPU, minutes on a GPU), full (nightly)\n");
    } else {
      RunOptions o;
      o.suites = {*suite};
      o.backend = *backend;
      o.tier = parse_tier(*tier);
      for (const auto& p : plan_points(o, 0, *ranks))
        fmt::print("{}  {:.3g} GFLOP  {:.3g} MB  AI {:.1f}\n", p.name(), p.work.flops / 1e9, p.work.bytes / 1e6,
                   p.work.arithmetic_intensity());
    }
    exit_code = kExitOk;
  });
}

void add_info_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("info", "Describe the device of a backend, its fingerprint and its profile");
  auto backend = std::make_shared<std::string>("cpu");
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--backend", *backend, "Backend")->capture_default_str();
  cmd->add_flag("--json", *json, "Print the device properties as JSON");
  cmd->callback([=, &exit_code] {
    const auto& b = find_backend(*backend);
    if (*json) {
      std::cout << nlohmann::ordered_json{{"backend", b.name()}, {"fingerprint", b.fingerprint()}, {"properties", b.properties()}}.dump(2) << "\n";
    } else {
      fmt::print("backend:     {}\ndevice:      {}\nfingerprint: {}\nclock:       {:.0f} MHz\n", b.name(), b.summary(),
                 b.fingerprint(), b.clock_mhz());
      const auto lookup = find_profile(b, "");
      if (lookup.profile) {
        fmt::print("profile:     {} (measured {})\n", lookup.source, lookup.profile->created);
        for (const auto& c : lookup.profile->measured.compute)
          fmt::print("  {:<18} {:>10.1f} GFLOP/s  ({})\n", c.name, c.flops_per_s / 1e9, c.unit);
        for (const auto& l : lookup.profile->measured.bandwidth)
          fmt::print("  {:<18} {:>10.1f} GB/s\n", l.level + " bandwidth", l.bytes_per_s / 1e9);
      } else {
        fmt::print("profile:     {}\n", lookup.source);
      }
    }
    exit_code = kExitOk;
  });
}

}  // namespace rooftop::cli
