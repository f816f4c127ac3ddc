#pragma once
#include <filesystem>
#include <string_view>

namespace rooftop {

// Writes the whole content to a temporary file beside `path`, flushes it to disk and
// renames it over `path`: a reader sees the old file or the new one, never half of one.
// A symbolic link's target is written (the link stays); a character device, pipe or socket
// (/dev/null, /dev/stdout, a FIFO) is written directly; a directory is refused.
// Throws InputError naming the path on failure (an existing file is left as it was).
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace rooftop
