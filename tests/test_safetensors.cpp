// safetensors reader and writer: files round-trip byte for byte, a file laid out as other
// tools lay it out reads, and every kind of malformed or truncated file is an InputError
// naming the file, the tensor and the problem.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "harness/errors.hpp"
#include "suites/inference/safetensors.hpp"

using namespace rooftop;
using namespace rooftop::inference;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// A directory of its own per test case, so concurrent runs of the suite do not collide.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device random;
    path = fs::temp_directory_path() /
           ("rooftop_test_safetensors_" + std::to_string(random()) + "_" + std::to_string(random()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// Distinct bytes per tensor, so a read from the wrong offset cannot pass.
std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(seed + 31 * i);
  return out;
}

// Writes a file by hand, with any header and any declared header length, to build broken files.
void write_raw(const fs::path& path, std::uint64_t header_length, std::string_view header, std::size_t data_bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((header_length >> (8 * i)) & 0xFF));
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  const auto data = pattern(data_bytes, 7);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  REQUIRE(out.good());
}

// The InputError message that f throws; a test fails if f throws anything else (Catch
// reports the unexpected exception), and "(no error)" fails any Contains check.
template <class F>
std::string input_error_from(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string open_error(const fs::path& path) {
  const std::string message = input_error_from([&] { SafetensorsFile file(path); });
  CHECK_THAT(message, Contains(path.string()));  // every message names the file
  return message;
}

// Opening a file with this header and data section gives this message.
std::string header_error(const TempDir& dir, std::string_view header, std::size_t data_bytes) {
  const auto path = dir.path / "bad.safetensors";
  write_raw(path, header.size(), header, data_bytes);
  return open_error(path);
}

std::uint64_t header_length_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(static_cast<unsigned char>(in.get())) << (8 * i);
  return n;
}

using Tensors = std::vector<std::pair<TensorInfo, std::vector<std::uint8_t>>>;

Tensors sample_tensors() {
  return {{{"embed", "F32", {2, 3}}, pattern(24, 1)},  {{"norm", "BF16", {4}}, pattern(8, 2)},
          {{"scale", "I8", {}}, pattern(1, 3)},        {{"empty", "F16", {0, 5}}, {}},
          {{"w8", "F8_E4M3", {3, 5}}, pattern(15, 4)}, {{"last", "F64", {1}}, pattern(8, 5)}};
}

}  // namespace

TEST_CASE("safetensors: names, shapes, bytes and metadata round-trip", "[inference]") {
  TempDir dir;
  const auto path = dir.path / "model.safetensors";
  const auto written = sample_tensors();
  const std::map<std::string, std::string> metadata{{"format", "pt"}, {"source", "rooftop test"}};
  write_safetensors(path, written, metadata);

  const SafetensorsFile file(path);
  REQUIRE(file.tensors().size() == written.size());
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < written.size(); ++i) {
    const auto& [expected, bytes] = written[i];
    const TensorInfo& t = file.tensors()[i];  // file order is the order written
    INFO("tensor " << expected.name);
    CHECK(t.name == expected.name);
    CHECK(t.dtype == expected.dtype);
    CHECK(t.shape == expected.shape);
    CHECK(t.begin == offset);
    CHECK(t.end == offset + bytes.size());
    offset = t.end;
    REQUIRE(file.find(expected.name) == &t);
    std::vector<std::uint8_t> read_back{9, 9, 9};  // stale contents must be replaced
    file.read(t, read_back);
    CHECK(read_back == bytes);
  }
  CHECK(file.find("absent") == nullptr);
  CHECK(file.find("emb") == nullptr);
  CHECK(file.metadata() == metadata);

  // Layout as the reference writer makes it: header padded with spaces to 8 bytes, nothing after the data.
  const auto header_length = header_length_of(path);
  CHECK(header_length % 8 == 0);
  CHECK(fs::file_size(path) == 8 + header_length + offset);
}

TEST_CASE("safetensors: a file laid out by another tool reads", "[inference]") {
  TempDir dir;
  const auto path = dir.path / "other.safetensors";
  SECTION("header keys out of data order, no metadata, trailing-space padding") {
    std::string header =
        R"({"a":{"dtype":"I32","shape":[2],"data_offsets":[4,12]},"b":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})";
    header.append(8 - header.size() % 8, ' ');  // at least one space, to check padding is accepted
    write_raw(path, header.size(), header, 12);
    const SafetensorsFile file(path);
    REQUIRE(file.tensors().size() == 2);
    CHECK(file.tensors()[0].name == "b");  // sorted by offset, not by key
    CHECK(file.tensors()[1].name == "a");
    CHECK(file.metadata().empty());
    std::vector<std::uint8_t> bytes;
    file.read(*file.find("a"), bytes);
    const auto all = pattern(12, 7);
    CHECK(bytes == std::vector<std::uint8_t>(all.begin() + 4, all.end()));
  }
  SECTION("no tensors at all") {
    write_raw(path, 2, "{}", 0);
    CHECK(SafetensorsFile(path).tensors().empty());
  }
}

TEST_CASE("safetensors: element sizes", "[inference]") {
  CHECK(safetensors_element_size("F64") == 8);
  CHECK(safetensors_element_size("F32") == 4);
  CHECK(safetensors_element_size("F16") == 2);
  CHECK(safetensors_element_size("BF16") == 2);
  CHECK(safetensors_element_size("F8_E4M3") == 1);
  CHECK(safetensors_element_size("F8_E5M2") == 1);
  CHECK(safetensors_element_size("I64") == 8);
  CHECK(safetensors_element_size("I32") == 4);
  CHECK(safetensors_element_size("I16") == 2);
  CHECK(safetensors_element_size("I8") == 1);
  CHECK(safetensors_element_size("U8") == 1);
  CHECK(safetensors_element_size("BOOL") == 1);
  CHECK_THROWS_AS(safetensors_element_size("f32"), InputError);  // case matters in the format
  CHECK_THROWS_WITH(safetensors_element_size("F33"), Contains("unknown safetensors dtype 'F33'"));
}

TEST_CASE("safetensors: missing, short, truncated and mis-sized files are InputErrors", "[inference]") {
  TempDir dir;
  const auto path = dir.path / "model.safetensors";
  CHECK_THAT(open_error(dir.path / "nowhere.safetensors"), Contains("no such file"));
  CHECK_THAT(open_error(dir.path), Contains("is a directory"));

  write_raw(path, 0, "", 0);
  fs::resize_file(path, 5);
  CHECK_THAT(open_error(path), Contains("is 5 bytes, shorter than the 8-byte header length"));

  write_raw(path, 1ull << 40, "{}", 0);
  CHECK_THAT(open_error(path), Contains("larger than the 100 MB limit"));

  write_raw(path, 200, R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 4);
  CHECK_THAT(open_error(path), Contains("header length 200 runs past the end of the file"));

  write_safetensors(path, sample_tensors());
  fs::resize_file(path, fs::file_size(path) - 3);
  CHECK_THAT(open_error(path), Contains("tensor 'last'") && Contains("file is truncated"));
}

TEST_CASE("safetensors: a Git LFS pointer in place of the weights says so and how to fetch them", "[inference]") {
  TempDir dir;
  const auto path = dir.path / "model.safetensors";
  std::ofstream(path) << "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a2146\nsize 2888376\n";
  CHECK_THAT(open_error(path), Contains("is a Git LFS pointer file") && Contains("git lfs pull"));
}

TEST_CASE("safetensors: a scan reads a tensor's bytes in order, a chunk at a time", "[inference]") {
  TempDir dir;
  const auto path = dir.path / "model.safetensors";
  write_safetensors(path, sample_tensors());
  const SafetensorsFile f(path);
  for (const auto& t : f.tensors()) {
    std::vector<std::uint8_t> whole, scanned;
    f.read(t, whole);
    f.scan(t, [&](std::span<const std::uint8_t> chunk, std::uint64_t at) {
      CHECK(at == scanned.size());
      scanned.insert(scanned.end(), chunk.begin(), chunk.end());
    });
    CHECK(scanned == whole);
  }
}

TEST_CASE("safetensors: malformed headers are InputErrors naming the tensor and the problem", "[inference]") {
  TempDir dir;
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":"U8",)", 0), Contains("header is not valid JSON"));
  CHECK_THAT(header_error(dir, "[1, 2]", 0), Contains("header is not a JSON object (it is array)"));
  CHECK_THAT(header_error(dir, R"({"w":3})", 0), Contains("tensor 'w': entry is not an object"));

  // Missing fields.
  CHECK_THAT(header_error(dir, R"({"w":{"shape":[4],"data_offsets":[0,4]}})", 4),
             Contains("tensor 'w'") && Contains(R"(missing "dtype")"));
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":"U8","data_offsets":[0,4]}})", 4),
             Contains("tensor 'w'") && Contains(R"(missing "shape")"));
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":"U8","shape":[4]}})", 4),
             Contains("tensor 'w'") && Contains(R"(missing "data_offsets")"));

  // Wrong types.
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":8,"shape":[4],"data_offsets":[0,4]}})", 4),
             Contains(R"("dtype" must be a string)"));
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":"U8","shape":"4","data_offsets":[0,4]}})", 4),
             Contains(R"("shape" must be an array of integers)"));
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":"U8","shape":[2.5],"data_offsets":[0,4]}})", 4),
             Contains(R"("shape" must be an array of integers)"));
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[4]}})", 4),
             Contains(R"("data_offsets" must be [begin, end])"));
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[-1,3]}})", 4),
             Contains(R"("data_offsets" must be [begin, end])"));

  // Wrong values.
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":"Q7","shape":[4],"data_offsets":[0,4]}})", 4),
             Contains("tensor 'w': unknown dtype 'Q7'"));
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":"U8","shape":[-2,2],"data_offsets":[0,4]}})", 4),
             Contains("tensor 'w': shape [-2,2] has a negative dimension"));
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[4,0]}})", 4),
             Contains("tensor 'w': data_offsets [4, 0] have begin after end"));
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,12]}})", 12),
             Contains("tensor 'w': shape [2, 2] of F32 needs 16 bytes, but data_offsets [0, 12] hold 12"));
  CHECK_THAT(header_error(dir, R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 2),
             Contains("tensor 'w'") && Contains("file holds only 2 data bytes: the file is truncated"));

  // Metadata.
  CHECK_THAT(header_error(dir, R"({"__metadata__":3})", 0), Contains(R"("__metadata__" must be an object of strings)"));
  CHECK_THAT(header_error(dir, R"({"__metadata__":{"format":1}})", 0),
             Contains(R"("__metadata__" entry 'format' must be a string)"));
}

TEST_CASE("safetensors: tensors must tile the data section exactly", "[inference]") {
  TempDir dir;
  CHECK_THAT(header_error(dir,
                          R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                          R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                          12),
             Contains("tensors 'a' [0, 8] and 'b' [4, 12] overlap"));
  CHECK_THAT(header_error(dir,
                          R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                          R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                          12),
             Contains("tensor 'b': starts at byte 8 but the data before it ends at byte 4: a gap"));
  CHECK_THAT(header_error(dir, R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 6),
             Contains("2 bytes follow the last tensor's data"));
}

TEST_CASE("safetensors: reading from a file that shrank after opening is an InputError", "[inference]") {
  TempDir dir;
  const auto path = dir.path / "model.safetensors";
  write_safetensors(path, sample_tensors());
  const SafetensorsFile file(path);
  fs::resize_file(path, fs::file_size(path) - 4);
  std::vector<std::uint8_t> bytes;
  CHECK_NOTHROW(file.read(*file.find("embed"), bytes));  // still whole
  CHECK_THAT(input_error_from([&] { file.read(*file.find("last"), bytes); }),
             Contains("tensor 'last': could only read 4 of its 8 bytes"));

  const TensorInfo stranger{"embed", "F32", {2, 3}, 8, 32};
  CHECK_THAT(input_error_from([&] { file.read(stranger, bytes); }), Contains("is not a tensor of this file"));
}

TEST_CASE("safetensors: the writer refuses tensors it could not read back", "[inference]") {
  TempDir dir;
  const auto path = dir.path / "model.safetensors";
  const auto write = [&](const Tensors& tensors) { return input_error_from([&] { write_safetensors(path, tensors); }); };
  CHECK_THAT(write({{{"w", "F32", {2}}, pattern(7, 1)}}),
             Contains("tensor 'w': shape [2] of F32 needs 8 bytes, but 7 were given"));
  CHECK_THAT(write({{{"w", "F31", {2}}, pattern(8, 1)}}), Contains("tensor 'w': unknown dtype 'F31'"));
  CHECK_THAT(write({{{"w", "U8", {-1}}, {}}}), Contains("tensor 'w': shape [-1] has a negative dimension"));
  CHECK_THAT(write({{{"w", "U8", {1}}, pattern(1, 1)}, {{"w", "U8", {1}}, pattern(1, 2)}}),
             Contains("tensor 'w': is given twice"));
  CHECK_THAT(write({{{"__metadata__", "U8", {1}}, pattern(1, 1)}}), Contains("is a reserved name"));
  CHECK_FALSE(fs::exists(path));  // nothing is written when the tensors are refused
}
