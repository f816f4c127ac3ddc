// Issue 52, N8: ROOFTOP_INJECT_SLOWDOWN read strictly, a run made with it marked in its
// results, and refused as a baseline or a night of history.
#include <catch2/catch.hpp>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "harness/baselines.hpp"
#include "harness/errors.hpp"
#include "harness/history_store.hpp"
#include "harness/injected_slowdown.hpp"
#include "harness/results.hpp"
#include "test_run_meta.hpp"

using namespace rooftop;
namespace fs = std::filesystem;

namespace {
RunResults slowed_run() {
  RunResults run;
  run.meta = testing::test_run_meta("quick");
  run.meta.injected_slowdown = InjectedSlowdown{0.5, ""};
  ResultRecord r;
  r.problem = {"gemm", "cpu", Dtype::fp32, "m2_n2_k2", {{"m", 2}, {"n", 2}, {"k", 2}}, {16, 48}, 64};
  r.samples = {{1e-6, 100, 0}, {1.1e-6, 100, 0}, {0.9e-6, 100, 0}};
  run.results.push_back(r);
  derive_records(run);
  return run;
}

// Sets an environment variable for one scope, as it was afterwards.
struct ScopedVariable {
  std::string name;
  std::optional<std::string> before;
  ScopedVariable(std::string n, const char* value) : name(std::move(n)) {
    if (const char* old = std::getenv(name.c_str())) before = old;
    if (value) ::setenv(name.c_str(), value, 1);
    else ::unsetenv(name.c_str());
  }
  ~ScopedVariable() {
    if (before) ::setenv(name.c_str(), before->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};
}  // namespace

TEST_CASE("ROOFTOP_INJECT_SLOWDOWN: the whole value a number above 0 and below 10", "[results][inject]") {
  CHECK(parse_injected_fraction("0.05") == 0.05);
  CHECK(parse_injected_fraction("1") == 1.0);
  CHECK(parse_injected_fraction("9.0") == 9.0);
  CHECK(parse_injected_fraction("5e-2") == 0.05);
  for (const char* bad : {"0.05abc", "abc", "", "nan", "inf", "0", "-0.1", "10", " 0.05", "0.05 ", "0x1p-4"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_injected_fraction(bad), InputError);
  }
  CHECK_THROWS_WITH(parse_injected_fraction("0.05abc"),
                    Catch::Contains("ROOFTOP_INJECT_SLOWDOWN='0.05abc' is not a fraction") &&
                        Catch::Contains("unset ROOFTOP_INJECT_SLOWDOWN"));

  const ScopedVariable match("ROOFTOP_INJECT_SLOWDOWN_MATCH", "m64_");
  {
    const ScopedVariable unset("ROOFTOP_INJECT_SLOWDOWN", nullptr);
    CHECK_FALSE(injected_slowdown_from_environment());
  }
  {
    const ScopedVariable empty("ROOFTOP_INJECT_SLOWDOWN", "");
    CHECK_FALSE(injected_slowdown_from_environment());
  }
  const ScopedVariable set("ROOFTOP_INJECT_SLOWDOWN", "0.25");
  const auto injected = injected_slowdown_from_environment();
  REQUIRE(injected);
  CHECK(injected->fraction == 0.25);
  CHECK(injected->match == "m64_");
}

TEST_CASE("a slowed run says so in its results, a file without the mark reads as before", "[results][inject]") {
  auto run = slowed_run();
  run.meta.injected_slowdown->match = "m2_";
  const auto j = results_to_json(run);
  CHECK(j["injected_slowdown"] == nlohmann::ordered_json({{"fraction", 0.5}, {"match", "m2_"}}));
  const auto back = results_from_json(nlohmann::ordered_json::parse(j.dump()), "slowed.json");
  REQUIRE(back.meta.injected_slowdown);
  CHECK(back.meta.injected_slowdown->fraction == 0.5);
  CHECK(back.meta.injected_slowdown->match == "m2_");

  run.meta.injected_slowdown.reset();
  auto plain = results_to_json(run);
  CHECK_FALSE(plain.contains("injected_slowdown"));
  CHECK_FALSE(results_from_json(plain, "plain.json").meta.injected_slowdown);
  plain["injected_slowdown"] = nullptr;
  CHECK_FALSE(results_from_json(plain, "plain.json").meta.injected_slowdown);
  plain["injected_slowdown"] = "yes";
  CHECK_THROWS_WITH(results_from_json(plain, "x.json"), Catch::Contains("'injected_slowdown' is not an object"));
  plain["injected_slowdown"] = {{"fraction", true}};
  CHECK_THROWS_WITH(results_from_json(plain, "x.json"), Catch::Contains("injected_slowdown.fraction"));
  plain["injected_slowdown"] = {{"fraction", 0.1}, {"match", 3}};
  CHECK_THROWS_WITH(results_from_json(plain, "x.json"), Catch::Contains("injected_slowdown.match"));
}

TEST_CASE("a slowed run is no baseline and no night of history", "[results][inject][history]") {
  const auto dir = fs::temp_directory_path() / "rooftop_test_injected";
  fs::remove_all(dir);
  const auto run = slowed_run();
  CHECK_THROWS_WITH(promote_baselines(run, "slowed.json", dir / "store"),
                    Catch::Contains("slowed.json: made with an injected slowdown (ROOFTOP_INJECT_SLOWDOWN=0.5,") &&
                        Catch::Contains("unset ROOFTOP_INJECT_SLOWDOWN"));
  CHECK_FALSE(fs::exists(dir / "store"));
  fs::create_directories(dir);
  HistoryStore history(dir / "h.sqlite");
  CHECK_THROWS_WITH(history.add(run, "slowed.json"), Catch::Contains("made with an injected slowdown") &&
                                                         Catch::Contains("--allow-injected"));
  CHECK(history.series().empty());
  CHECK(history.add(run, "slowed.json", true) == 1);  // calibrating the history check
  fs::remove_all(dir);
}
