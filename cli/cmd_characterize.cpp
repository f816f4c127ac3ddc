// `rooftop characterize`: measure a device's ceilings and save them as its profile.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <optional>

#include "harness/backend.hpp"
#include "harness/datasheets.hpp"
#include "harness/device_profile.hpp"
#include "harness/errors.hpp"
#include "cli/commands.hpp"
#include "harness/atomic_file.hpp"
#include "harness/exit_codes.hpp"
#include "harness/paths.hpp"

namespace rooftop::cli {

void add_characterize_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("characterize", "Measure the device's compute and bandwidth ceilings into a profile");
  auto backend = std::make_shared<std::string>("cpu");
  auto out = std::make_shared<std::string>();
  auto datasheet = std::make_shared<std::string>();
  auto quick = std::make_shared<bool>(false);
  cmd->add_option("--backend", *backend, "Backend")->capture_default_str();
  cmd->add_option("--out", *out, "Profile file (default: $ROOFTOP_HOME/profiles/<fingerprint>.json)");
  cmd->add_option("--datasheet", *datasheet,
                  "Datasheet ceilings kept beside the measured ones: a spec id from devices/specs, a JSON file, or "
                  "'none' (default: the spec whose name matches the device)");
  cmd->add_flag("--quick", *quick, "Shorter measurements (for tests; less stable)");
  auto merge = std::make_shared<bool>(false);
  cmd->add_flag("--merge", *merge, "Keep the best of this measurement and the stored profile's, per ceiling");
  cmd->callback([=, &exit_code] {
    const auto& b = find_backend(*backend);
    CharacterizeOptions options;
    options.quick = *quick;
    // The datasheet is resolved first: a wrong --datasheet fails before minutes of measuring.
    const auto props = b.properties();
    const std::string device_name = props.value("name", props.value("model_name", std::string()));
    const auto sheet = resolve_datasheet(*datasheet, device_name, default_specs_dir());
    // So is where the profile goes, and the profile --merge keeps: a corrupt or foreign one,
    // or a ROOFTOP_HOME that is a file, fails now, not after the measurement.
    const auto path = out->empty() ? default_profile_path(b.fingerprint()) : std::filesystem::path(*out);
    if (std::filesystem::is_directory(path))
      throw InputError(fmt::format("{} is a directory: give --out a file's path", path.string()));
    std::error_code ec;
    if (path.has_parent_path() && !std::filesystem::is_directory(path.parent_path()) &&
        !std::filesystem::create_directories(path.parent_path(), ec))
      throw InputError(fmt::format("cannot make the folder {} for the profile: {}", path.parent_path().string(),
                                   ec ? ec.message() : "a file is in the way"));
    check_outputs({{"--out", path}});  // /dev/full, a read-only folder: said before the measurement
    std::optional<DeviceProfile> stored;
    if (*merge && std::filesystem::exists(path)) {
      stored = load_profile(path);
      if (stored->fingerprint != b.fingerprint())
        throw InputError(fmt::format("{}: measured on {}, not on this device {}: cannot merge", path.string(),
                                     stored->fingerprint, b.fingerprint()));
    }
    auto profile = b.characterize(options, std::cerr);
    profile.datasheet = sheet;
    fmt::print(stderr, "datasheet: {}\n", sheet ? sheet->name : "none matches '" + device_name + "'");
    if (stored) {
      profile.measured = merge_ceilings(stored->measured, profile.measured);
      fmt::print(stderr, "merged with {}\n", path.string());
    }
    save_profile(path, profile);
    fmt::print("wrote {}\n", path.string());
    exit_code = kExitOk;
  });
}

}  // namespace rooftop::cli
