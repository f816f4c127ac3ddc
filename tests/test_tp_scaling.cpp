// The report's tensor-parallel scaling view (reports/tp_scaling.hpp): the same point at each
// tp across results files, its speed-up and efficiency against ideal scaling.
#include <catch2/catch.hpp>

#include <sstream>

#include "reports/tp_scaling.hpp"
#include "reports/tp_scaling_svg.hpp"

using namespace rooftop;

namespace {

ResultRecord decode_point(const std::string& shape, int tp, std::vector<double> tpot_s) {
  Problem p;
  p.family = "inference";
  p.backend = "cpu";
  p.dtype = Dtype::bf16;
  p.shape = shape;
  p.params = {{"scenario", "decode"}, {"batch", 1}};
  if (tp > 1) p.params["tp"] = tp;
  auto r = record_of(p);
  r.samples.push_back({tpot_s.front(), 8, 0});
  std::vector<double> tokens;
  for (double t : tpot_s) tokens.push_back(1 / t);
  r.metrics = {{"tpot_s", tpot_s}, {"output_tokens_per_s", tokens}};
  return r;
}

RunResults run_of(std::vector<ResultRecord> records) {
  RunResults run;
  run.meta.device = {{"name", "Test CPU"}};
  run.results = std::move(records);
  return run;
}

}  // namespace

TEST_CASE("tp scaling: each point's TPOT by tp, speed-up and efficiency against the smallest tp", "[report][tp]") {
  const auto one = run_of({decode_point("m_decode_b1_c128", 1, {0.010, 0.012, 0.011}), decode_point("alone_decode_b1_c8", 1, {1})});
  const auto two = run_of({decode_point("m_decode_b1_c128_tp2", 2, {0.006})});
  const auto four = run_of({decode_point("m_decode_b1_c128_tp4", 4, {0.004})});
  const auto rows = reports::tp_scaling_rows({&four, &one, &two});
  REQUIRE(rows.size() == 3);  // "alone" has one tp: no scaling to show
  CHECK(rows[0].point == "m_decode_b1_c128");
  CHECK(rows[0].tp == 1);
  CHECK(rows[0].tpot_s == Approx(0.011));  // the median of the repetitions
  CHECK(rows[1].tp == 2);
  CHECK(rows[1].speedup == Approx(0.011 / 0.006));
  CHECK(rows[1].efficiency == Approx(0.011 / 0.006 / 2));
  CHECK(rows[2].tp == 4);
  CHECK(rows[2].efficiency == Approx(0.011 / 0.004 / 4));
  CHECK(rows[2].tokens_per_s == Approx(250));
  std::ostringstream out;
  reports::print_tp_scaling(out, rows);
  CHECK_THAT(out.str(), Catch::Contains("m_decode_b1_c128") && Catch::Contains("4.000 ms") && Catch::Contains("69%"));
  for (std::size_t at = 0, end; (end = out.str().find('\n', at)) != std::string::npos; at = end + 1)
    CHECK(end - at <= 120);
}

TEST_CASE("tp scaling: the speed-up chart, a line a point and the ideal, and tokens/s in whole numbers", "[report][tp]") {
  const auto one = run_of({decode_point("m_decode_b1_c128", 1, {1.0 / 24769})});
  const auto four = run_of({decode_point("m_decode_b1_c128_tp4", 4, {1.0 / 14061})});
  const auto rows = reports::tp_scaling_rows({&one, &four});
  REQUIRE(rows.size() == 2);
  const auto svg = reports::tp_scaling_svg(rows);
  CHECK_THAT(svg, Catch::Contains(R"(<line class="ideal")") && Catch::Contains(R"(class="tp-line")") &&
                      Catch::Contains("tp1") && Catch::Contains("tp4"));
  std::size_t points = 0;
  for (auto at = svg.find("tp-point"); at != std::string::npos; at = svg.find("tp-point", at + 1)) ++points;
  CHECK(points == 2);
  CHECK(reports::tp_scaling_svg({}).empty());
  // 24769 tokens/s reads so, not 2.477e+04.
  std::ostringstream out;
  reports::print_tp_scaling(out, rows);
  CHECK_THAT(out.str(), Catch::Contains("24769") && !Catch::Contains("e+04"));
}
