// Files and JSON from users and other machines (harness/input_file.hpp): the size and type
// checks before reading, the nesting bound, and values quoted in messages with bounded work.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "harness/errors.hpp"
#include "harness/input_file.hpp"

using namespace rooftop;
namespace fs = std::filesystem;

TEST_CASE("input files: a device and a file past the bound are refused before anything is read", "[input]") {
  CHECK_THROWS_WITH(read_input_file("/dev/zero", "results file"), Catch::Contains("is a device or socket"));
  // A sparse file one byte past the bound: refused by its size, at once, nothing read.
  const auto big = fs::temp_directory_path() / ("rooftop-big-" + std::to_string(::getpid()) + ".json");
  std::ofstream(big).put('[');
  fs::resize_file(big, kMaxInputFileBytes + 1);
  CHECK_THROWS_WITH(read_input_file(big, "results file"),
                    Catch::Contains("1073741825 bytes, more than the 1 GiB rooftop reads as a results file"));
  fs::remove(big);
}

TEST_CASE("JSON input: nesting past the bound refused while parsing, at the bound read", "[input]") {
  const auto nested = [](int levels) { return std::string(levels, '[') + std::string(levels, ']'); };
  CHECK(parse_json_input(nested(kMaxJsonDepth), "t.json", "results file").is_array());
  CHECK_THROWS_WITH(parse_json_input(nested(kMaxJsonDepth + 1), "t.json", "results file"),
                    Catch::Contains("t.json: results file is nested deeper than 128 levels"));
  CHECK_THROWS_WITH(parse_json_input(nested(300000), "t.json", "results file"), Catch::Contains("nested deeper"));
}

TEST_CASE("quoted JSON: cut after the limit, its work bounded by what it shows, whatever the value", "[input]") {
  CHECK(quote_json(nlohmann::json::parse(R"({"a": [1, 2], "b": "x"})")) == R"({"a":[1,2],"b":"x"})");
  CHECK(quote_json(nlohmann::json(std::string(1000, 'y')), 10) == "\"yyyyyyyyy...");
  CHECK(quote_json(nlohmann::json("caf\u00e9\n")) == R"("caf\u00e9\n")");  // ASCII: a cut never splits a character
  // A million elements: the first twenty are shown (the whole was dumped, then cut).
  CHECK(quote_json(nlohmann::json(1'000'000, 7)) == "[7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7...");
  // A value made deeper than any parsed one (dump() recursed once a level and overflowed the
  // stack): quoting recurses only as far as it shows.
  nlohmann::ordered_json deep = nlohmann::ordered_json::array();
  for (int i = 0; i < 300000; ++i) {
    nlohmann::ordered_json outer = nlohmann::ordered_json::array();
    outer.push_back(std::move(deep));
    deep = std::move(outer);
  }
  CHECK(quote_json(deep, 5) == "[[[[[...");
}
