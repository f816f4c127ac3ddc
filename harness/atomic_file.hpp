#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace rooftop {

// Writes the whole content to a temporary file beside `path`, flushes it to disk and
// renames it over `path`: a reader sees the old file or the new one, never half of one.
// A symbolic link's target is written (the link stays); a character device, pipe or socket
// (/dev/null, /dev/stdout, a FIFO) is written directly; a directory is refused.
// Throws InputError naming the path on failure (an existing file is left as it was).
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

struct FileContent {
  std::filesystem::path path;
  std::string content;
};
// Writes several files all or nothing: each to a temporary file beside it first (a full disk
// or an unwritable folder is found before anything is replaced), then renames them over their
// paths; if a rename fails, the files already replaced get their old content back. A path
// is replaced itself, never followed: a symbolic link is replaced by the file, not written
// through. Throws InputError naming the path on failure.
void write_files_atomically(const std::vector<FileContent>& files);

}  // namespace rooftop
