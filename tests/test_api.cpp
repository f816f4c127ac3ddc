// The public API (rooftop/rooftop.hpp): a declared benchmark becomes a family whose sweep,
// shapes, work and instances are what the declaration says.
#include <catch2/catch.hpp>

#include <memory>

#include "api/declared_benchmarks.hpp"
#include "devices/devices.hpp"
#include "harness/backend.hpp"
#include "harness/errors.hpp"
#include "harness/registry.hpp"
#include "rooftop/rooftop.hpp"

namespace {

// Doubles its input: a kernel with a known answer, and a flag to show run() was called.
class Doubling final : public rooftop::Case {
 public:
  explicit Doubling(std::int64_t n) : n_(n) {}
  void run() override { ++runs; }
  rooftop::Check check() override {
    if (n_ == 7) throw rooftop::Skip("n = 7 is skipped in check()");
    if (n_ == 9) throw 9;  // not a std::exception
    rooftop::Check c;
    c.elements_checked = c.elements_total = n_ == 11 ? 0 : static_cast<std::uint64_t>(n_);
    c.max_error_ratio = n_ % 2 == 0 ? 0.5 : 2.0;  // odd n "fails" its check, so both outcomes are seen
    c.tolerance = "exact";
    return c;
  }
  std::string implementation() const override { return "doubling"; }
  int runs = 0;

 private:
  std::int64_t n_;
};

ROOFTOP_BENCHMARK("api_test")
    .description("the API's test benchmark")
    .dtypes({"fp32", "bf16"})
    .axis("n", {4, 8, 16})
    .axis("m", {1, 3})
    .axis("n", {32}, rooftop::Tier::full)
    .work([](const rooftop::Point& p) {
      return rooftop::Work{2.0 * static_cast<double>(p.get("n") * p.get("m")),
                           static_cast<double>(p.dtype_bytes() * p.get("n") * p.get("m"))};
    })
    .setup([](const rooftop::Point& p, std::uint64_t) -> std::unique_ptr<rooftop::Case> {
      if (p.get("m") == 3 && p.dtype() == "bf16") throw rooftop::Skip("no bf16 at m = 3");
      if (p.get("n") == 13) return nullptr;  // a broken setup
      return std::make_unique<Doubling>(p.get("n"));
    });

void register_once() {
  static const bool done = [] {
    if (rooftop::backends().empty()) rooftop::register_all_backends();
    rooftop::register_declared_benchmarks();
    return true;
  }();
  (void)done;
}

}  // namespace

TEST_CASE("a declared benchmark sweeps the product of its axes, per tier", "[api]") {
  register_once();
  const auto& family = rooftop::find_family("api_test");
  CHECK(family.shape_syntax == "nxm");
  rooftop::PlanContext context;
  context.tier = rooftop::Tier::quick;
  const auto quick = family.sweep(context);
  REQUIRE(quick.size() == 3 * 2 * 2);  // n x m x dtypes
  CHECK(quick.front().name() == "api_test/cpu/fp32/n4_m1");
  CHECK(quick.front().params["n"] == 4);
  CHECK(quick.front().work.flops == 8);
  CHECK(quick.front().work.bytes == 16);  // fp32: 4 bytes x 4
  CHECK(quick[1].name() == "api_test/cpu/bf16/n4_m1");
  CHECK(quick[1].work.bytes == 8);
  context.tier = rooftop::Tier::smoke;
  CHECK(family.sweep(context).size() == 2);  // the first value of each axis, both dtypes
  context.tier = rooftop::Tier::full;
  const auto full = family.sweep(context);
  REQUIRE(full.size() == 1 * 2 * 2);
  CHECK(full.front().shape == "n32_m1");
  context.backend = "cuda";
  CHECK(family.sweep(context).empty());  // declared for the CPU only
}

TEST_CASE("a user's shape names the axes in order", "[api]") {
  register_once();
  const auto& family = rooftop::find_family("api_test");
  const auto points = family.shape_points("6x5", rooftop::Dtype::fp32, {});
  REQUIRE(points.size() == 1);
  CHECK(points[0].shape == "n6_m5");
  for (const char* bad : {"6", "6x", "x5", "6x5x2", "6x-1", "6x0", "axb"})
    CHECK_THROWS_AS(family.shape_points(bad, rooftop::Dtype::fp32, {}), rooftop::InputError);
}

TEST_CASE("a declared benchmark's instances run its Case, map its check and its skips", "[api]") {
  register_once();
  const auto& family = rooftop::find_family("api_test");
  const auto* create = rooftop::find_implementation("api_test", "cpu");
  REQUIRE(create);
  const auto even = family.shape_points("4x1", rooftop::Dtype::fp32, {}).front();
  auto with_cache = even;
  with_cache.params["cache"] = "warm";  // a parameter the kernel loop adds: not an axis
  auto instance = (*create)(with_cache, {});
  CHECK(instance->implementation() == "doubling");
  const auto passed = instance->check();
  CHECK(passed.passed);
  CHECK(passed.elements_checked == 4);
  CHECK(passed.max_error_ratio == 0.5);
  const auto instance_for = [&](const char* shape) {
    return (*create)(family.shape_points(shape, rooftop::Dtype::fp32, {}).front(), {});
  };
  CHECK_FALSE(instance_for("5x1")->check().passed);
  CHECK_THROWS_AS(instance_for("7x1")->check(), rooftop::PointSkipped);
  CHECK_THROWS_AS(instance_for("9x1")->check(), std::runtime_error);
  const auto nothing = instance_for("11x1")->check();  // nothing checked: not a pass
  CHECK_FALSE(nothing.passed);
  CHECK_THAT(nothing.tolerance, Catch::Contains("nothing was checked"));
  CHECK_THROWS_AS((*create)(family.shape_points("4x3", rooftop::Dtype::bf16, {}).front(), {}), rooftop::PointSkipped);
}

TEST_CASE("declarations that cannot run are refused with the reason", "[api]") {
  register_once();
  const auto setup = [](const rooftop::Point&, std::uint64_t) -> std::unique_ptr<rooftop::Case> { return nullptr; };
  const auto work = [](const rooftop::Point&) { return rooftop::Work{1, 1}; };
  const auto refused = [](const rooftop::Benchmark& b, const char* words) {
    try {
      rooftop::check_declaration(b);
      FAIL("accepted");
    } catch (const rooftop::InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(words));
    }
  };
  refused(rooftop::Benchmark("no_setup").work(work), "no setup()");
  refused(rooftop::Benchmark("no_work").setup(setup), "no work()");
  refused(rooftop::Benchmark("api_test").work(work).setup(setup), "declared twice");
  refused(rooftop::Benchmark("bad/name").work(work).setup(setup), "without '/'");
  refused(rooftop::Benchmark("bad_axis").axis("N", {1}).work(work).setup(setup), "lower-case");
  refused(rooftop::Benchmark("empty_axis").axis("n", {}).work(work).setup(setup), "positive values");
  refused(rooftop::Benchmark("bad_backend").backend("tpu").work(work).setup(setup), "not in this build");
  refused(rooftop::Benchmark("reserved").axis("cache", {1}).work(work).setup(setup), "keeps that parameter name");
  refused(rooftop::Benchmark("twice").axis("n", {4, 4}).work(work).setup(setup), "distinct positive");
  refused(rooftop::Benchmark("tier_zero").axis("n", {4}).axis("n", {0}, rooftop::Tier::full).work(work).setup(setup),
          "distinct positive");
  refused(rooftop::Benchmark("misspelt").axis("n", {4}).setup(setup).work([](const rooftop::Point& p) {
            return rooftop::Work{1, static_cast<double>(p.get("m"))};
          }),
          "work() failed on its first point");
  refused(rooftop::Benchmark("no_bytes").axis("n", {4}).setup(setup).work([](const rooftop::Point&) {
            return rooftop::Work{1, 0};
          }),
          "bytes must be positive");
  CHECK_THROWS_AS(rooftop::check_declaration(rooftop::Benchmark("bad_dtype").dtypes({"fp64"}).work(work).setup(setup)),
                  rooftop::InputError);
  rooftop::check_declaration(rooftop::Benchmark("fine").axis("n", {1, 2}).work(work).setup(setup));
}

TEST_CASE("a setup that returns no Case is one point's error", "[api]") {
  register_once();
  const auto* create = rooftop::find_implementation("api_test", "cpu");
  REQUIRE(create);
  CHECK_THROWS_WITH((*create)(rooftop::find_family("api_test").shape_points("13x1", rooftop::Dtype::fp32, {}).front(), {}),
                    Catch::Contains("returned no Case"));
}

TEST_CASE("a point names its axes when asked for another", "[api]") {
  const rooftop::Point p({{"rows", 2}, {"cols", 3}}, "bf16", "cpu");
  CHECK(p.get("cols") == 3);
  CHECK(p.dtype_bytes() == 2);
  CHECK_THROWS_WITH(p.get("depth"), Catch::Contains("rows, cols"));
}
