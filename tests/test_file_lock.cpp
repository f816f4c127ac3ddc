// The lock around the baseline store's read-modify-write (harness/file_lock.hpp): a flock on
// the store's folder, one holder at a time, a clear refusal past the patience, nothing left.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>

#include "harness/errors.hpp"
#include "harness/file_lock.hpp"

using namespace rooftop;
namespace fs = std::filesystem;

TEST_CASE("store lock: a second taker waits its patience, then is refused, and takes it once let go", "[lock]") {
  const auto store = fs::temp_directory_path() / ("rooftop-lock-" + std::to_string(::getpid()));
  fs::remove_all(store);
  fs::create_directories(store);
  std::optional<FileLock> held;
  held.emplace(store, "the baseline store " + store.string());
  // flock is per open file: a second open in this process contends as another process would.
  const auto started = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(FileLock(store, "the baseline store X", std::chrono::seconds(1)),
                    Catch::Contains("the baseline store X is being updated by another process"));
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(900));
  held.reset();
  { const FileLock again(store, "the baseline store", std::chrono::seconds(0)); }
  CHECK(fs::is_empty(store));  // no lock file joins the store's layout
  // A store path that is a file is no folder to lock.
  const auto file = store / "f";
  std::ofstream(file) << "x";
  CHECK_THROWS_AS(FileLock(file, "the baseline store", std::chrono::seconds(0)), InputError);
  fs::remove_all(store);
}
