#include "suites/inference/safetensors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (moved here in fmt 11)

#include <algorithm>
#include <array>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>

#include "harness/errors.hpp"
#include "harness/input_file.hpp"

namespace rooftop::inference {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A real header is a few hundred KB even for thousands of tensors; a larger length means
// the file is not safetensors (or is corrupt), and trusting it would allocate gigabytes.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";
constexpr const char* kFetchAgain = "download or export the file again";

struct DtypeSize {
  std::string_view name;
  std::size_t bytes;
};
constexpr std::array<DtypeSize, 15> kDtypes{{{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F8_E4M3", 1},
                                             {"F8_E5M2", 1}, {"I64", 8}, {"I32", 4}, {"I16", 2}, {"I8", 1},
                                             {"U64", 8}, {"U32", 4}, {"U16", 2}, {"U8", 1}, {"BOOL", 1}}};

std::optional<std::size_t> element_size_of(std::string_view dtype) {
  for (const auto& d : kDtypes)
    if (d.name == dtype) return d.bytes;
  return std::nullopt;
}

std::string known_dtypes() {
  std::string out;
  for (const auto& d : kDtypes) out += (out.empty() ? "" : ", ") + std::string(d.name);
  return out;
}

[[noreturn]] void fail(const fs::path& path, std::string_view what) {
  throw InputError(fmt::format("{}: {}", path.string(), what));
}

[[noreturn]] void fail_tensor(const fs::path& path, std::string_view tensor, std::string_view what) {
  throw InputError(fmt::format("{}: tensor '{}': {}", path.string(), tensor, what));
}

// --- opening and the header ----------------------------------------------------------

std::uint64_t checked_file_size(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) fail(path, "no such file; check the path (weights are not downloaded by rooftop)");
  if (fs::is_directory(status))
    fail(path, "is a directory, not a safetensors file; give the path of a .safetensors file inside it");
  if (!fs::is_regular_file(status)) fail(path, "is not a regular file; give the path of a .safetensors file");
  const auto size = fs::file_size(path, ec);
  if (ec) fail(path, fmt::format("cannot read its size ({}); check its permissions", ec.message()));
  return size;
}

std::ifstream open_for_reading(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open for reading; check its permissions");
  return in;
}

std::uint64_t read_header_length(std::ifstream& in, const fs::path& path, std::uint64_t file_size) {
  std::string start(64, '\0');
  in.read(start.data(), static_cast<std::streamsize>(start.size()));
  start.resize(static_cast<std::size_t>(in.gcount()));
  if (is_git_lfs_pointer(start))
    fail(path, fmt::format("is a Git LFS pointer file ({} bytes of text), not the weights: {}", file_size, kGitLfsAdvice));
  in.clear();
  in.seekg(0);
  if (file_size < 8)
    fail(path, fmt::format("is {} bytes, shorter than the 8-byte header length every safetensors file starts with; "
                           "it is truncated or not safetensors: {}",
                           file_size, kFetchAgain));
  std::array<unsigned char, 8> bytes{};
  if (!in.read(reinterpret_cast<char*>(bytes.data()), 8)) fail(path, "cannot read the header length");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[static_cast<std::size_t>(i)];  // little-endian on any host
  if (n > kMaxHeaderBytes)
    fail(path, fmt::format("header length {} is larger than the 100 MB limit: not a safetensors file, or corrupt; {}",
                           n, kFetchAgain));
  if (n > file_size - 8)
    fail(path, fmt::format("header length {} runs past the end of the file ({} bytes): the file is truncated or "
                           "not safetensors; {}",
                           n, file_size, kFetchAgain));
  return n;
}

json read_header(std::ifstream& in, const fs::path& path, std::uint64_t length) {
  std::string text(length, '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(length))) fail(path, "cannot read the JSON header");
  json header;
  try {
    header = parse_json_input(text, "header", "safetensors header");
  } catch (const InputError& e) {
    fail(path, fmt::format("{}: the file is corrupt or not safetensors; {}", e.what(), kFetchAgain));
  }
  if (!header.is_object())
    fail(path, fmt::format("header is not a JSON object (it is {}): the file is corrupt or not safetensors; {}",
                           header.type_name(), kFetchAgain));
  return header;
}

std::map<std::string, std::string> parse_metadata(const json& header, const fs::path& path) {
  std::map<std::string, std::string> metadata;
  const auto it = header.find(kMetadataKey);
  if (it == header.end()) return metadata;
  if (!it->is_object())
    fail(path, fmt::format("\"{}\" must be an object of strings, but is {}; {}", kMetadataKey, it->type_name(),
                           kFetchAgain));
  for (const auto& [key, value] : it->items()) {
    if (!value.is_string())
      fail(path, fmt::format("\"{}\" entry '{}' must be a string, but is {}; {}", kMetadataKey, key,
                             value.type_name(), kFetchAgain));
    metadata.emplace(key, value.get<std::string>());
  }
  return metadata;
}

// --- one tensor entry ----------------------------------------------------------------

const json& required_field(const json& entry, const char* field, const fs::path& path, const std::string& name) {
  const auto it = entry.find(field);
  if (it == entry.end()) fail_tensor(path, name, fmt::format("entry is missing \"{}\"; {}", field, kFetchAgain));
  return *it;
}

std::vector<std::int64_t> parse_shape(const json& shape, const fs::path& path, const std::string& name) {
  if (!shape.is_array())
    fail_tensor(path, name, fmt::format("\"shape\" must be an array of integers, but is {}", shape.type_name()));
  std::vector<std::int64_t> dims;
  for (const auto& d : shape) {
    // The parser stores non-negative integers as unsigned, negative ones as signed.
    if (d.is_number_integer() && !d.is_number_unsigned())
      fail_tensor(path, name, fmt::format("shape {} has a negative dimension; {}", quote_json(shape), kFetchAgain));
    if (!d.is_number_unsigned())
      fail_tensor(path, name, fmt::format("\"shape\" must be an array of integers, but is {}", quote_json(shape)));
    const auto v = d.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail_tensor(path, name, fmt::format("shape {} has a dimension too large for 64 bits", quote_json(shape)));
    dims.push_back(static_cast<std::int64_t>(v));
  }
  return dims;
}

std::pair<std::uint64_t, std::uint64_t> parse_offsets(const json& offsets, const fs::path& path,
                                                      const std::string& name) {
  const bool two_unsigned =
      offsets.is_array() && offsets.size() == 2 && offsets[0].is_number_unsigned() && offsets[1].is_number_unsigned();
  if (!two_unsigned)
    fail_tensor(path, name,
                fmt::format("\"data_offsets\" must be [begin, end], two non-negative integers, but is {}; {}",
                            quote_json(offsets), kFetchAgain));
  const auto begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
  if (begin > end)
    fail_tensor(path, name, fmt::format("data_offsets [{}, {}] have begin after end; {}", begin, end, kFetchAgain));
  return {begin, end};
}

// Product of the dims times the element size; nullopt when it overflows 64 bits.
std::optional<std::uint64_t> bytes_for(const std::vector<std::int64_t>& shape, std::size_t element_size) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  std::uint64_t bytes = element_size;
  for (const auto d : shape) {
    const auto dim = static_cast<std::uint64_t>(d);
    if (bytes > std::numeric_limits<std::uint64_t>::max() / dim) return std::nullopt;
    bytes *= dim;
  }
  return bytes;
}

std::string shape_text(const std::vector<std::int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

TensorInfo parse_tensor(const std::string& name, const json& entry, const fs::path& path, std::uint64_t data_size) {
  if (!entry.is_object())
    fail_tensor(path, name, fmt::format("entry is not an object (it is {}); {}", entry.type_name(), kFetchAgain));
  TensorInfo t;
  t.name = name;
  const json& dtype = required_field(entry, "dtype", path, name);
  const json& shape = required_field(entry, "shape", path, name);
  const json& offsets = required_field(entry, "data_offsets", path, name);
  if (!dtype.is_string())
    fail_tensor(path, name, fmt::format("\"dtype\" must be a string, but is {}", quote_json(dtype)));
  t.dtype = dtype.get<std::string>();
  const auto element_size = element_size_of(t.dtype);
  if (!element_size)
    fail_tensor(path, name, fmt::format("unknown dtype '{}' (rooftop reads {})", t.dtype, known_dtypes()));
  t.shape = parse_shape(shape, path, name);
  std::tie(t.begin, t.end) = parse_offsets(offsets, path, name);
  if (t.end > data_size)
    fail_tensor(path, name,
                fmt::format("data ends at byte {} of the data section, but the file holds only {} data bytes: the "
                            "file is truncated (an interrupted download or copy?); {}",
                            t.end, data_size, kFetchAgain));
  const auto expected = bytes_for(t.shape, *element_size);
  if (!expected) fail_tensor(path, name, fmt::format("shape {} is too large for 64 bits", shape_text(t.shape)));
  if (*expected != t.end - t.begin)
    fail_tensor(path, name,
                fmt::format("shape {} of {} needs {} bytes, but data_offsets [{}, {}] hold {}; the header is "
                            "corrupt: {}",
                            shape_text(t.shape), t.dtype, *expected, t.begin, t.end, t.end - t.begin, kFetchAgain));
  return t;
}

// --- the tensors together ------------------------------------------------------------

// The spec requires the tensors to tile the data section exactly: no overlap, no gap, and
// nothing after the last (the reference implementation refuses all three).
void check_layout(const std::vector<TensorInfo>& by_offset, std::uint64_t data_size, const fs::path& path) {
  std::uint64_t covered = 0;  // end of the data accounted for so far
  const TensorInfo* previous = nullptr;
  for (const auto& t : by_offset) {
    if (previous && t.begin < covered)
      fail(path, fmt::format("tensors '{}' [{}, {}] and '{}' [{}, {}] overlap in the data section; the header is "
                             "corrupt: {}",
                             previous->name, previous->begin, previous->end, t.name, t.begin, t.end, kFetchAgain));
    if (t.begin > covered)
      fail_tensor(path, t.name,
                  fmt::format("starts at byte {} but the data before it ends at byte {}: a gap, which safetensors "
                              "forbids; {}",
                              t.begin, covered, kFetchAgain));
    covered = std::max(covered, t.end);
    previous = &t;
  }
  if (covered != data_size)
    fail(path, fmt::format("{} bytes follow the last tensor's data (which ends at byte {} of {}); safetensors forbids "
                           "unindexed bytes: the file is corrupt, {}",
                           data_size - covered, covered, data_size, kFetchAgain));
}

// --- writing ---------------------------------------------------------------------------

void check_writable_tensor(const TensorInfo& t, std::size_t data_bytes, const fs::path& path) {
  if (t.name == kMetadataKey) fail_tensor(path, t.name, "is a reserved name; rename the tensor");
  const auto element_size = element_size_of(t.dtype);
  if (!element_size)
    fail_tensor(path, t.name, fmt::format("unknown dtype '{}' (safetensors dtypes: {})", t.dtype, known_dtypes()));
  if (std::any_of(t.shape.begin(), t.shape.end(), [](std::int64_t d) { return d < 0; }))
    fail_tensor(path, t.name, fmt::format("shape {} has a negative dimension", shape_text(t.shape)));
  const auto expected = bytes_for(t.shape, *element_size);
  if (!expected || *expected != data_bytes)
    fail_tensor(path, t.name,
                fmt::format("shape {} of {} needs {} bytes, but {} were given", shape_text(t.shape), t.dtype,
                            expected ? fmt::to_string(*expected) : std::string("more than 2^64"), data_bytes));
}

std::string header_text(const std::vector<std::pair<TensorInfo, std::vector<std::uint8_t>>>& tensors,
                        const std::map<std::string, std::string>& metadata, const fs::path& path) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header[kMetadataKey] = metadata;
  std::uint64_t offset = 0;
  std::set<std::string, std::less<>> names;
  for (const auto& [t, data] : tensors) {
    check_writable_tensor(t, data.size(), path);
    if (!names.insert(t.name).second) fail_tensor(path, t.name, "is given twice; tensor names must be unique");
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + data.size()}}};
    offset += data.size();
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& e) {  // a name or metadata value that is not UTF-8
    fail(path, fmt::format("cannot write the header ({}); tensor names and metadata must be UTF-8", e.what()));
  }
  // Padding keeps the data section 8-byte aligned, so a memory-mapped reader can use it in place.
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

}  // namespace

bool is_git_lfs_pointer(std::string_view first_bytes) {
  return first_bytes.starts_with("version https://git-lfs.github.com/spec/");
}

std::size_t safetensors_element_size(std::string_view dtype) {
  const auto size = element_size_of(dtype);
  if (!size) throw InputError(fmt::format("unknown safetensors dtype '{}' (known: {})", dtype, known_dtypes()));
  return *size;
}

SafetensorsFile::SafetensorsFile(const fs::path& path) : path_(path) {
  const auto file_size = checked_file_size(path);
  auto in = open_for_reading(path);
  const auto header_length = read_header_length(in, path, file_size);
  const json header = read_header(in, path, header_length);
  data_start_ = 8 + header_length;
  data_size_ = file_size - data_start_;
  metadata_ = parse_metadata(header, path);
  for (const auto& [name, entry] : header.items())
    if (name != kMetadataKey) tensors_.push_back(parse_tensor(name, entry, path, data_size_));
  std::sort(tensors_.begin(), tensors_.end(),
            [](const TensorInfo& a, const TensorInfo& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  check_layout(tensors_, data_size_, path);
  for (std::size_t i = 0; i < tensors_.size(); ++i) index_.emplace(tensors_[i].name, i);
}

const TensorInfo* SafetensorsFile::find(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

void SafetensorsFile::read(const TensorInfo& t, std::vector<std::uint8_t>& out) const {
  const TensorInfo* mine = find(t.name);
  if (!mine || mine->begin != t.begin || mine->end != t.end)
    fail_tensor(path_, t.name, "is not a tensor of this file; look it up with find() on this file");
  auto in = open_for_reading(path_);
  out.resize(t.end - t.begin);
  in.seekg(static_cast<std::streamoff>(data_start_ + t.begin));
  if (!in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size())))
    fail_tensor(path_, t.name,
                fmt::format("could only read {} of its {} bytes: the file was truncated or replaced after it was "
                            "opened; {}",
                            in.gcount(), out.size(), kFetchAgain));
}

void SafetensorsFile::scan(const TensorInfo& t,
                           const std::function<void(std::span<const std::uint8_t>, std::uint64_t)>& each) const {
  const TensorInfo* mine = find(t.name);
  if (!mine || mine->begin != t.begin || mine->end != t.end)
    fail_tensor(path_, t.name, "is not a tensor of this file; look it up with find() on this file");
  constexpr std::uint64_t kChunk = 16u << 20;
  auto in = open_for_reading(path_);
  in.seekg(static_cast<std::streamoff>(data_start_ + t.begin));
  std::vector<std::uint8_t> chunk;
  for (std::uint64_t at = 0; at < t.end - t.begin; at += chunk.size()) {
    chunk.resize(static_cast<std::size_t>(std::min(kChunk, t.end - t.begin - at)));
    if (!in.read(reinterpret_cast<char*>(chunk.data()), static_cast<std::streamsize>(chunk.size())))
      fail_tensor(path_, t.name,
                  fmt::format("could only read {} of its {} bytes: the file was truncated or replaced after it was "
                              "opened; {}",
                              at + static_cast<std::uint64_t>(in.gcount()), t.end - t.begin, kFetchAgain));
    each(chunk, at);
  }
}

void write_safetensors(const fs::path& path,
                       const std::vector<std::pair<TensorInfo, std::vector<std::uint8_t>>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  const std::string header = header_text(tensors, metadata, path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, "cannot open for writing; check the directory exists and is writable");
  std::array<char, 8> length{};
  for (std::size_t i = 0; i < 8; ++i) length[i] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  out.write(length.data(), 8);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  for (const auto& [t, data] : tensors)
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) fail(path, "writing failed (disk full?); free space and write it again");
}

}  // namespace rooftop::inference
