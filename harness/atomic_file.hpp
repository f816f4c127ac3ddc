#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace rooftop {

// Writes the whole content to a temporary file beside `path`, flushes it to disk and
// renames it over `path`: a reader sees the old file or the new one, never half of one.
// A file rewritten keeps its mode (and owner, where allowed); a new one is 0644 less the umask.
// A symbolic link's target is written (the link stays); a character device, pipe or socket
// (/dev/null, /dev/stdout, a FIFO) is written directly; a directory is refused.
// Temporary files a killed writer left beside `path` (.<name>.rooftop-tmp.<pid> of a
// process no longer alive) are removed at the first write of `path` in a process.
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
// through. A regular file replaced keeps its mode. Throws InputError naming the path on failure.
void write_files_atomically(const std::vector<FileContent>& files);

// A character device, a pipe or a socket (/dev/null, /dev/stdout, a FIFO): written once, as
// it is; a reader of a pipe would otherwise get one document per rewrite, or block the writer.
bool is_stream_output(const std::filesystem::path& path);

// A file a command reads or writes, and the flag that named it ("--out", "results").
struct NamedFile {
  std::string flag;
  std::filesystem::path path;
};

// Before any work: every output (empty paths skipped) can be written, as far as can be told
// without writing it (not a directory nor /dev/full, its folder writable), no two outputs are
// the same file and no output is one of the inputs. Throws InputError naming the path.
void check_outputs(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs = {});
// The folders the outputs go in, made where missing (for writers that do not make them).
void make_parent_folders(const std::vector<NamedFile>& outputs);

}  // namespace rooftop
