#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "harness/errors.hpp"
#include "harness/shape_sets.hpp"

using namespace rooftop;

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;
using Strings = std::vector<std::string>;

// "shape/dtype" for each point of expand_by_dtype, in order.
Strings points(const std::vector<ShapeEntry>& entries, std::string_view backend) {
  Strings out;
  for (const auto& [entry, dtype] : expand_by_dtype(entries, backend)) out.push_back(entry->shape + "/" + dtype);
  return out;
}

// The message parse_shape_set throws, or "" when it does not.
std::string error_of(std::string_view text) {
  try {
    parse_shape_set(text, "set.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("shape sets: comments, blank lines, directives and shapes with their line numbers", "[unit]") {
  const auto entries = parse_shape_set(
      "# a comment line\n"
      "\n"
      "   \t\n"
      "--dtype=fp32,bf16   # dtypes for what follows\n"
      "256x256x256\n"
      "  512x512x512  # trailing comment, spaces around\n"
      "--backend=cuda --dtype=tf32\n"
      "8192x8192x8192\r\n",
      "gemm/shapes/quick.txt");
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].shape == "256x256x256");
  CHECK(entries[0].line == 5);
  CHECK(entries[0].backends.empty());
  CHECK(entries[0].dtypes == Strings{"fp32", "bf16"});
  CHECK(entries[1].shape == "512x512x512");
  CHECK(entries[1].line == 6);
  CHECK(entries[2].shape == "8192x8192x8192");
  CHECK(entries[2].line == 8);
  CHECK(entries[2].backends == Strings{"cuda"});
  CHECK(entries[2].dtypes == Strings{"tf32"});
}

TEST_CASE("shape sets: shapes are kept as written, not interpreted", "[unit]") {
  const auto entries = parse_shape_set(
      "--dtype=bf16\n"
      "prefill:2x16x16x8192x128:causal:wgm128n128w8s2o\n"
      "all_reduce:1K-8G:f2:inplace\n"
      "not-a-shape-of-any-family\n",
      "x");
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].shape == "prefill:2x16x16x8192x128:causal:wgm128n128w8s2o");
  CHECK(entries[1].shape == "all_reduce:1K-8G:f2:inplace");
  CHECK(entries[2].shape == "not-a-shape-of-any-family");
  CHECK(parse_shape_set("", "empty").empty());
  CHECK(parse_shape_set("# only comments\n--dtype=fp32\n", "empty").empty());
}

TEST_CASE("shape sets: labels are set, replaced and cleared for the lines that follow", "[unit]") {
  const auto entries = parse_shape_set(
      "--dtype=fp32 --set=square\n"
      "256x256x256\n"
      "--note=llama\n"
      "16x4096x4096\n"
      "--set=llama3_8b\n"
      "16x6144x4096\n"
      "--set=\n"
      "1x1x1\n"
      "--note= --set=again\n"
      "2x2x2\n"
      "--unset_never_set=\n"
      "3x3x3\n",
      "x");
  REQUIRE(entries.size() == 6);
  CHECK(entries[0].labels == Labels{{"set", "square"}});
  CHECK(entries[1].labels == Labels{{"set", "square"}, {"note", "llama"}});
  CHECK(entries[2].labels == Labels{{"set", "llama3_8b"}, {"note", "llama"}});  // replaced in place
  CHECK(entries[3].labels == Labels{{"note", "llama"}});
  CHECK(entries[4].labels == Labels{{"set", "again"}});
  CHECK(entries[5].labels == Labels{{"set", "again"}});
  // Labels are not backends or dtypes.
  CHECK(entries[0].backends.empty());
  CHECK(entries[0].dtypes == Strings{"fp32"});
}

TEST_CASE("shape sets: --backend filters, '*' is any and resets a list", "[unit]") {
  const auto entries = parse_shape_set(
      "--dtype=fp32\n"
      "any1\n"
      "--backend=cpu\n"
      "cpu_only\n"
      "--backend=cuda,rocm\n"
      "gpu_only\n"
      "--backend=*\n"
      "any2\n",
      "x");
  REQUIRE(entries.size() == 4);
  CHECK(entries[1].backends == Strings{"cpu"});
  CHECK(entries[2].backends == Strings{"cuda", "rocm"});
  CHECK(entries[3].backends.empty());

  CHECK(applies_to(entries[0], "cpu"));
  CHECK(applies_to(entries[0], "anything"));
  CHECK(applies_to(entries[1], "cpu"));
  CHECK_FALSE(applies_to(entries[1], "cuda"));
  CHECK_FALSE(applies_to(entries[2], "cpu"));
  CHECK(applies_to(entries[2], "cuda"));
  CHECK(applies_to(entries[2], "rocm"));
  CHECK_FALSE(applies_to(entries[2], "cud"));  // whole names only

  CHECK(points(entries, "cpu") == Strings{"any1/fp32", "cpu_only/fp32", "any2/fp32"});
  CHECK(points(entries, "cuda") == Strings{"any1/fp32", "gpu_only/fp32", "any2/fp32"});
  CHECK(points(entries, "tpu") == Strings{"any1/fp32", "any2/fp32"});
}

TEST_CASE("shape sets: points go dtype by dtype, in order of first appearance, then file order", "[unit]") {
  const auto entries = parse_shape_set(
      "--dtype=bf16,fp32\n"
      "a\n"
      "--dtype=bf16\n"
      "b\n"
      "--dtype=int8,fp32\n"
      "c\n"
      "--backend=cuda --dtype=fp8,bf16\n"
      "d\n",
      "x");
  CHECK(points(entries, "cpu") == Strings{"a/bf16", "b/bf16", "a/fp32", "c/fp32", "c/int8"});
  // On cuda fp8 first appears after bf16, fp32 and int8.
  CHECK(points(entries, "cuda") == Strings{"a/bf16", "b/bf16", "d/bf16", "a/fp32", "c/fp32", "c/int8", "d/fp8"});
  // The order among the entries that apply: fp8 leads where it is listed first.
  const auto gpu_first = parse_shape_set("--backend=cuda --dtype=fp8\ng\n--backend=* --dtype=fp32\nh\n", "x");
  CHECK(points(gpu_first, "cuda") == Strings{"g/fp8", "h/fp32"});
  CHECK(points(gpu_first, "cpu") == Strings{"h/fp32"});
  // Pointers are to the entries themselves.
  const auto expanded = expand_by_dtype(entries, "cpu");
  REQUIRE_FALSE(expanded.empty());
  CHECK(expanded.front().first == &entries[0]);
}

TEST_CASE("shape sets: errors name the file and line and say how to write it", "[unit]") {
  SECTION("a shape before any --dtype") {
    const auto e = error_of("# header\n--backend=cpu\n256x256x256\n");
    CHECK_THAT(e, Catch::StartsWith("set.txt:3: "));
    CHECK_THAT(e, Catch::Contains("before any --dtype") && Catch::Contains("--dtype=fp32"));
  }
  SECTION("an unknown dtype") {
    const auto e = error_of("--dtype=fp32\n1x1x1\n\n--dtype=fp32,fp64\n");
    CHECK_THAT(e, Catch::StartsWith("set.txt:4: "));
    CHECK_THAT(e, Catch::Contains("fp64") && Catch::Contains("choose one of fp32"));
  }
  SECTION("a dtype list with an empty name or nothing") {
    CHECK_THAT(error_of("--dtype=fp32,,bf16\n"), Catch::StartsWith("set.txt:1: ") && Catch::Contains("empty name"));
    CHECK_THAT(error_of("\n--dtype=\n"), Catch::StartsWith("set.txt:2: ") && Catch::Contains("lists no dtype"));
  }
  SECTION("a directive without '='") {
    const auto e = error_of("--dtype=fp32\n--set square\n");
    CHECK_THAT(e, Catch::StartsWith("set.txt:2: "));
    CHECK_THAT(e, Catch::Contains("'--set'") && Catch::Contains("no '='") && Catch::Contains("--key=value"));
    CHECK_THAT(error_of("--dtype=fp32 --causal\n"), Catch::StartsWith("set.txt:1: ") && Catch::Contains("'--causal'"));
    CHECK_THAT(error_of("--=x\n"), Catch::StartsWith("set.txt:1: ") && Catch::Contains("no key"));
  }
  SECTION("an empty backend list") {
    const auto e = error_of("--dtype=fp32\nx\n--backend=\n");
    CHECK_THAT(e, Catch::StartsWith("set.txt:3: "));
    CHECK_THAT(e, Catch::Contains("no backend") && Catch::Contains("--backend=*"));
    CHECK_THAT(error_of("--backend=cpu,\n"), Catch::StartsWith("set.txt:1: ") && Catch::Contains("empty name"));
    CHECK_THAT(error_of("--backend=cpu,*\n"), Catch::StartsWith("set.txt:1: ") && Catch::Contains("stands alone"));
  }
  SECTION("a shape on a directive line, or a line of two shapes") {
    CHECK_THAT(error_of("--dtype=fp32 256x256x256\n"), Catch::StartsWith("set.txt:1: ") && Catch::Contains("'256x256x256'"));
    CHECK_THAT(error_of("--dtype=fp32\n1x1x1 2x2x2\n"), Catch::StartsWith("set.txt:2: ") && Catch::Contains("one shape a line"));
  }
  SECTION("lists naming one thing twice") {
    CHECK_THAT(error_of("--dtype=fp32,fp32\n"), Catch::Contains("twice"));
    CHECK_THAT(error_of("--backend=cpu,cpu\n"), Catch::Contains("twice"));
  }
  SECTION("a good file throws nothing") { CHECK(error_of("--backend=cpu --dtype=fp32 --set=x\n1x1x1\n--set=\n") == ""); }
}
