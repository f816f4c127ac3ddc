#pragma once
// Reader and writer for Hugging Face's safetensors format, read by hand (no library):
// an 8-byte little-endian header length N, N bytes of JSON header naming each tensor's
// dtype, shape and byte range, then the tensors' raw little-endian bytes.
// The whole header is checked when the file is opened, so a corrupt or truncated file
// fails at once with a message naming the file and tensor, not later mid-benchmark.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rooftop::inference {

struct TensorInfo {
  std::string name;
  std::string dtype;                // safetensors' spelling: "F32", "BF16", "F8_E4M3", ...
  std::vector<std::int64_t> shape;  // empty for a scalar
  std::uint64_t begin = 0, end = 0;  // byte range, relative to the first byte after the header
};

// A Git LFS pointer: the small text file a clone without LFS (or without `git lfs pull`)
// leaves where the weights should be.
bool is_git_lfs_pointer(std::string_view first_bytes);
inline constexpr const char* kGitLfsAdvice =
    "the clone has the pointer, not the file. Fetch the weights with `git lfs pull` in the checkout (or download "
    "them again)";

// Bytes per element of a safetensors dtype (F64, F32, F16, BF16, F8_E4M3, F8_E5M2, I64,
// I32, I16, I8, U64, U32, U16, U8, BOOL). Throws InputError for any other.
std::size_t safetensors_element_size(std::string_view dtype);

class SafetensorsFile {
 public:
  // Reads and checks the header only; tensor bytes are read on demand by read(), since
  // weights can be far larger than memory. Throws InputError on any malformed file.
  explicit SafetensorsFile(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }
  // In file order (by data offset), which is also the fastest order to read them in.
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  // nullptr when the file has no tensor of that name.
  const TensorInfo* find(std::string_view name) const;
  // Reads the tensor's bytes into out (resized to end - begin). Reopens the file, so
  // concurrent reads from several threads are safe. Throws InputError if the file has
  // shrunk since it was opened.
  void read(const TensorInfo& t, std::vector<std::uint8_t>& out) const;
  // Reads the tensor's bytes a chunk at a time (a multiple of 8 bytes, so no element is
  // split), calling each(chunk, its first byte's offset in the tensor): a scan of a tensor
  // larger than memory. Throws as read() does.
  void scan(const TensorInfo& t, const std::function<void(std::span<const std::uint8_t>, std::uint64_t)>& each) const;
  // The header's optional "__metadata__" (string to string); empty when absent.
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

 private:
  std::filesystem::path path_;
  std::uint64_t data_start_ = 0;  // 8 + header length
  std::uint64_t data_size_ = 0;   // bytes after the header
  std::vector<TensorInfo> tensors_;
  std::map<std::string, std::size_t, std::less<>> index_;  // name -> position in tensors_
  std::map<std::string, std::string> metadata_;
};

// Writes tensors in the given order, computing their data_offsets (their begin/end are
// ignored); the header is padded with spaces to a multiple of 8 bytes, as the reference
// implementation does, so the data stays aligned. Each tensor's bytes must match its
// shape and dtype. Throws InputError naming the tensor or the file on failure.
void write_safetensors(const std::filesystem::path& path,
                       const std::vector<std::pair<TensorInfo, std::vector<std::uint8_t>>>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace rooftop::inference
