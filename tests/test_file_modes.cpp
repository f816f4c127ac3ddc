// Issue 52, N13: a file rewritten atomically (temporary, rename) keeps its mode; a results
// file or baseline made 0600 became 0644 at its next write.
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "harness/atomic_file.hpp"

using namespace rooftop;
namespace fs = std::filesystem;

namespace {
mode_t mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

fs::path file_with_mode(const fs::path& p, mode_t mode) {
  std::ofstream(p) << "old\n";
  REQUIRE(::chmod(p.c_str(), mode) == 0);
  return p;
}

// The process's umask for one scope.
struct ScopedUmask {
  mode_t before;
  explicit ScopedUmask(mode_t mask) : before(::umask(mask)) {}
  ~ScopedUmask() { ::umask(before); }
};

std::string content_of(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST_CASE("an atomic rewrite keeps the file's mode, a new file takes 0644 less the umask", "[results][atomic]") {
  const ScopedUmask umask(022);
  const auto dir = fs::temp_directory_path() / "rooftop_test_file_modes";
  fs::remove_all(dir);
  fs::create_directories(dir / "real");
  for (const mode_t mode : {mode_t{0600}, mode_t{0640}, mode_t{0444}}) {
    INFO("mode 0" << std::oct << mode);
    const auto p = file_with_mode(dir / "r.json", mode);
    write_file_atomically(p, "new\n");
    CHECK(content_of(p) == "new\n");
    CHECK(mode_of(p) == mode);
  }
  write_file_atomically(dir / "fresh.json", "{}\n");
  CHECK(mode_of(dir / "fresh.json") == 0644);
  // Through a symbolic link: the target is rewritten, and keeps its mode.
  file_with_mode(dir / "real" / "target.json", 0600);
  fs::create_symlink("real/target.json", dir / "link.json");
  write_file_atomically(dir / "link.json", "new\n");
  CHECK(fs::is_symlink(fs::symlink_status(dir / "link.json")));
  CHECK(mode_of(dir / "real" / "target.json") == 0600);
  // Several at once (a baseline update of several suites): each keeps its own.
  file_with_mode(dir / "a.json", 0600);
  file_with_mode(dir / "b.json", 0640);
  write_files_atomically({{dir / "a.json", "a\n"}, {dir / "b.json", "b\n"}, {dir / "c.json", "c\n"}});
  CHECK(content_of(dir / "a.json") == "a\n");
  CHECK(mode_of(dir / "a.json") == 0600);
  CHECK(mode_of(dir / "b.json") == 0640);
  CHECK(mode_of(dir / "c.json") == 0644);
  fs::remove_all(dir);
}
