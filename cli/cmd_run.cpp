// `rooftop run`: measure the points of one or more suites on a backend.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>

#include <iostream>
#include <random>
#include <set>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/number_options.hpp"
#include "cli/profile_lookup.hpp"
#include "devices/ranks/local_ranks.hpp"
#include "harness/atomic_file.hpp"
#include "harness/backend.hpp"
#include "harness/datasheets.hpp"
#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "harness/paths.hpp"
#include "harness/printable_text.hpp"
#include "harness/process_group.hpp"
#include "harness/profile_writeback.hpp"
#include "harness/registry.hpp"
#include "harness/results.hpp"
#include "harness/roof_check.hpp"
#include "harness/runner.hpp"
#include "harness/system_state.hpp"
#include "harness/tuning_cache.hpp"
#include "harness/version.hpp"
#include "cli/prompt_tokens.hpp"
#include "reports/printers.hpp"
#include "reports/run_conditions.hpp"

namespace rooftop::cli {
namespace {

int count_failures(const RunResults& run) {
  return static_cast<int>(std::count_if(run.results.begin(), run.results.end(), [](const ResultRecord& r) {
    return r.status == Status::failed || r.status == Status::error;
  }));
}
int results_exit_code(const RunResults& run) { return count_failures(run) ? kExitFailure : kExitOk; }

// A tuned tile that is not one of its point's candidates (a hand-edited, older or foreign
// tuning file) would make the point skip and drop out of the run unnoticed: it runs its
// default tile instead, says so, and its results record why.
void replace_invalid_tuned_tiles(const std::vector<Problem>& planned, const std::filesystem::path& tuning_file,
                                 RunOptions& o, bool say) {
  for (const auto& p : planned) {
    const auto it = o.tiles.find(p.name());
    if (it == o.tiles.end() || it->second.tile.empty()) continue;
    const Family* family = family_named(p.family);
    const auto candidates = family && family->tile_candidates ? family->tile_candidates(p) : std::vector<std::string>{};
    if (candidates.empty() || std::find(candidates.begin(), candidates.end(), it->second.tile) != candidates.end()) continue;
    // The tile as read from the file, its control bytes shown as \xNN (issue 52, N15: a NUL
    // reached the terminal raw).
    const auto why = fmt::format("the tuned tile '{}' of {} in {} is not one of this point's tiles",
                                 printable_text(it->second.tile), p.name(), tuning_file.string());
    if (say)
      fmt::print(stderr, "rooftop: warning: {}: it runs its default tile; run `rooftop tune` again, or delete the entry "
                         "\"points\".\"{}\"\n", why, p.name());
    it->second = {"", "default (" + why + ")"};
  }
}

struct RunFlags {
  RunOptions options;
  std::string tier = "quick";
  std::string out;
  std::string format = "table";
  bool wide = false;
  std::string profile;
  bool update_profile = false;  // --update-profile: raised ceilings go back to --profile's file too
  std::int64_t seed = -1;
  double min_time = 0;
  int ranks = 1;
  std::string prompt;  // --prompt, as given
  bool skip_check = false;  // --skip-check: options.check off
};

// Every file the run writes, checked before anything is measured: a trace or a Google
// Benchmark file that cannot be written would otherwise be found after the measurement.
std::vector<NamedFile> run_outputs(const RunOptions& o) {
  std::vector<NamedFile> outputs{{"--out", o.out.value_or("")}, {"--trace", o.trace.value_or("")}};
  for (const auto& arg : o.benchmark_args)
    if (arg.starts_with("--benchmark_out=")) outputs.push_back({"--benchmark_out", arg.substr(arg.find('=') + 1)});
  return outputs;
}

// A raised ceiling goes back to the stored profile (atomically, the old value kept in its
// `raised` records) so that the next run starts from it. A profile named with --profile is a
// file the user chose (a committed baseline, a colleague's): changed only with --update-profile.
void write_back_raised(const ProfileLookup& lookup, const RunFlags& f, const Backend& backend,
                       const nlohmann::ordered_json& remeasured) {
  const bool any_raised = std::any_of(remeasured.begin(), remeasured.end(),
                                      [](const auto& r) { return r.value("raised", false); });
  if (!lookup.profile || !any_raised) return;
  if (!f.profile.empty() && !f.update_profile) {
    fmt::print(stderr, "rooftop: {} (given with --profile) left as it is: add --update-profile to keep the raised "
                       "ceiling(s) there\n", lookup.source);
    return;
  }
  try {
    const int written = write_raised_ceilings(lookup.source, backend.fingerprint(), remeasured, utc_now_iso8601());
    if (written > 0)
      fmt::print(stderr, "rooftop: wrote {} raised ceiling(s) back to {} (the old values kept in its 'raised' "
                         "records): the next run starts from them\n", written, lookup.source);
  } catch (const std::exception& e) {  // the results stand; only the profile keeps its old values
    fmt::print(stderr, "rooftop: warning: the raised ceiling(s) were not written back: {}\n", e.what());
  }
}

// A result above its roof: the roof was measured low. The run re-measures those ceilings
// (a few rounds, harness/roof_check.hpp), keeps the higher value and records both.
void remeasure_exceeded_ceilings(const Backend& backend, RunResults& results, nlohmann::ordered_json& conditions,
                                 bool allowed) {
  if (!results.meta.ceilings) return;
  const auto exceeded = exceeded_ceilings(results_to_json(results));
  if (exceeded.empty() || !allowed) return;
  CharacterizeOptions options;
  options.max_rounds = 3;
  for (const auto& e : exceeded) options.only.push_back(e.ceiling);
  fmt::print(stderr, "rooftop: {} above its roof ({:.0f}%): re-measuring {} ceiling(s)\n", exceeded.front().trigger,
             exceeded.front().percent, exceeded.size());
  std::ostringstream log;  // the rounds' detail: the summary lines below say what changed
  const auto fresh = backend.characterize(options, log);
  conditions["remeasured"] = raise_ceilings(*results.meta.ceilings, exceeded, fresh.measured);
  derive_records(results);  // every placement against the raised ceilings
  for (const auto& line : reports::remeasured_lines(conditions)) fmt::print(stderr, "rooftop: ceiling {}\n", line);
}

int execute_run(RunFlags& f) {
  auto& o = f.options;
  if (f.skip_check) o.check = false;
  o.tier = parse_tier(f.tier);
  if (f.ranks > 1 && !launched_as_local_rank()) {
    // NCCL (or RCCL through its API): the collectives, and the scenarios' tensor-parallel points.
    if ((!runs_in_lockstep(o) && measurement_of(o) != Measurement::scenario) || (o.backend != "cuda" && o.backend != "hip"))
      throw InputError("--ranks starts one process per GPU for the NCCL collectives and tensor-parallel inference: use it "
                       "with --suite collectives or inference, --backend cuda (or hip, with RCCL) (CPU ranks exchange data "
                       "through MPI: mpirun -np N rooftop run ...)");
    if (launched_by_mpi())
      throw InputError("--ranks under an MPI launcher: let one of them start the ranks, not both");
    plan_points(o, 0, f.ranks);  // a bad tier, shape or filter said once, not by every rank
    return launch_local_ranks(f.ranks);
  }
  if (f.min_time > 0) o.min_time_s = f.min_time;
  if (!f.out.empty()) o.out = f.out;
  if (!f.prompt.empty()) {
    o.prompt = parse_prompt_tokens(f.prompt);
    if (o.shapes.empty())
      throw InputError("--prompt gives the tokens of the --shape points (inference prefill and generate): name them, "
                       "e.g. --shape MODEL:generate:1xPxG with P the prompt's length");
  }
  o.seed = f.seed >= 0 ? static_cast<std::uint64_t>(f.seed) : std::random_device{}();
  const auto& backend = find_backend(o.backend);
  const bool lockstep = runs_in_lockstep(o);
  std::unique_ptr<Transport> transport;
  // Ranks in lockstep (collectives), or a scenario suite's tensor-parallel ranks under an
  // MPI launcher (inference :tpN): MPI_Init before anything prints.
  if (lockstep || ((launched_by_mpi() || launched_as_local_rank()) && measurement_of(o) == Measurement::scenario))
    transport = backend.make_transport();
  // Every rank draws what rank 0 draws (a tensor-parallel model's weights are sliced from
  // the same seeded ones on each rank): without --seed, rank 0's random seed.
  if (transport && transport->ranks() > 1) o.seed = std::stoull(transport->gather_strings(std::to_string(o.seed)).front());
  const bool writer = !transport || transport->writes_results();
  // Input errors (suite, dtype, shape, filter) before anything is measured. A rank that
  // refuses its arguments alone would leave the others waiting for it.
  std::string refused;
  std::vector<Problem> planned;
  try {
    // The outputs first: planning may read a whole checkpoint (the inference suite's), and an
    // unwritable --out is said at once.
    if (writer) {
      const auto outputs = run_outputs(o);
      // The profile the run reads, the default one too: --out onto it replaced the profile.
      const NamedFile profile = f.profile.empty() ? NamedFile{"the device profile", default_profile_path(backend.fingerprint())}
                                                  : NamedFile{"--profile", f.profile};
      check_outputs(outputs, {profile, {"the tuning file", tuning_cache_path(backend.fingerprint())}});
      make_parent_folders(outputs);  // Google Benchmark opens --benchmark_out as it is; ours make theirs
    }
    planned = plan_points(o, backend.available_memory_bytes(), transport ? transport->ranks() : 1);
    const bool serving = std::any_of(planned.begin(), planned.end(), [](const Problem& p) {
      return declared_facts(p.params).scenario == "serve";  // the results module reads the suite's words
    });
    if ((!o.slo.empty() || o.sweep_rate) && !serving)
      throw InputError(fmt::format("{} applies to inference serve points, and the run has none: add one, e.g. --suite "
                                   "inference --shape tiny:serve:8x64",
                                   o.sweep_rate ? "--sweep-rate" : "--slo"));
  } catch (const InputError& e) {
    if (!transport) throw;
    refused = e.what();
  }
  if (transport && !transport->all_processes(refused.empty()))
    throw InputError(refused.empty() ? "another rank refused its arguments (its message says why): give every rank "
                                       "the same arguments"
                                     : refused);
  // What the suites say of their points (a checkout's config.json on random weights), once.
  if (writer) {
    std::set<std::string> said;
    for (const auto& p : planned)
      for (const auto& note : p.notes)
        if (said.insert(note).second) fmt::print(stderr, "rooftop: note: {}\n", note);
  }
  // Tiles `rooftop tune` chose for this device; tunable points without one run their default
  // and their results say so.
  const auto tuning_file = tuning_cache_path(backend.fingerprint());
  std::map<std::string, TunedPoint> tuned;
  try {
    tuned = load_tuning(tuning_file, backend.fingerprint());
  } catch (const InputError& e) {  // a gemm or collectives run must not fail for a broken tuning file
    if (writer) fmt::print(stderr, "rooftop: warning: {}; tunable points run their default tiles\n", e.what());
  }
  for (const auto& [name, t] : tuned) o.tiles[name] = {t.tile, "tuned " + t.tuned_at};
  replace_invalid_tuned_tiles(planned, tuning_file, o, writer);
  if (!tuned.empty() && writer) fmt::print(stderr, "rooftop: tuned tiles for {} point(s) from {}\n", tuned.size(), tuning_file.string());
  const auto lookup = find_profile(backend, f.profile);
  if (!lookup.profile && writer) fmt::print(stderr, "rooftop: note: {}; roofline fields will be empty\n", lookup.source);

  RunMetadata meta;
  meta.rooftop_version = kVersion;
  meta.git_commit = kGitCommit;
  meta.created = utc_now_iso8601();
  meta.host = host_properties();
  meta.command = o.command_line;
  meta.tier = f.tier;
  meta.seed = o.seed;
  meta.backend = backend.name();
  meta.fingerprint = backend.fingerprint();
  meta.device = backend.properties();
  meta.ceilings_source = lookup.source;
  if (lookup.profile) {
    meta.ceilings = lookup.profile->measured;
    meta.datasheet = lookup.profile->datasheet;
  } else {
    // Not characterized: the datasheet still gives the report its dashed roofs and the
    // collectives their link.
    const std::string device_name = meta.device.value("name", meta.device.value("model_name", std::string()));
    meta.datasheet = resolve_datasheet("", device_name, default_specs_dir());
  }

  // The host before the run: a busy one is said above the table (harness/system_state.hpp).
  std::vector<SystemReading> readings;
  std::vector<DeviceReading> device_readings;  // a GPU's clocks, heat and throttle reasons
  if (writer) {
    readings.push_back(read_system("before"));
    if (auto d = backend.read_device("before")) device_readings.push_back(std::move(*d));
    meta.conditions = conditions_to_json(readings);
    add_device_readings(meta.conditions, device_readings);
  }
  bool interrupted = false;
  auto results = run_points(o, backend, std::move(meta), transport.get(), interrupted);
  if (!writer) return results_exit_code(results);  // rank 0 prints and writes
  readings.push_back(read_system("after"));
  if (auto d = backend.read_device("after")) device_readings.push_back(std::move(*d));
  auto conditions = conditions_to_json(readings);
  add_device_readings(conditions, device_readings);
  remeasure_exceeded_ceilings(backend, results, conditions, !transport && !interrupted);
  if (conditions.contains("remeasured")) write_back_raised(lookup, f, backend, conditions["remeasured"]);
  results.meta.conditions = std::move(conditions);
  if (o.out && !is_stream_output(*o.out)) save_results(*o.out, results);  // a pipe had its one document
  reports::print_results(std::cout, f.format, results, f.wide);

  const int failures = count_failures(results);
  for (const auto& r : results.results)
    if (const auto& roof = derived_of(r).roofline; roof && roof->above_ceiling)
      fmt::print(stderr, "rooftop: WARNING: {} runs at {:.0f}% of its roof ({} / {}): the ceiling is still measured low; "
                         "run `rooftop characterize --merge` on an idle machine to keep the best of both\n",
                 r.problem.name(), 100.0 * roof->fraction_of_attainable, roof->compute_ceiling, roof->memory_level);
  for (const auto& r : results.results)
    if (slow_generic_path(r))
      fmt::print(stderr, "rooftop: WARNING: {} ran a generic path at {:.0f}% of its roof ({}): the point measures "
                         "rooftop's fallback, not the machine\n",
                 r.problem.name(), 100.0 * derived_of(r).roofline->fraction_of_attainable, r.generic_path);
  if (o.out) fmt::print(stderr, "rooftop: wrote {}\n", o.out->string());
  if (interrupted) {
    fmt::print(stderr, "rooftop: interrupted; kept the {} points that finished\n", results.results.size());
    return kExitInterrupted;
  }
  if (failures) {
    fmt::print(stderr, "rooftop: {} point(s) failed or could not run; see their reasons above\n", failures);
    return kExitFailure;
  }
  return kExitOk;
}

// The run subcommand's flags, for plan_parsed_run.
std::shared_ptr<RunFlags> parsed_run_flags;

}  // namespace

void add_run_command(CLI::App& app, int& exit_code, const std::vector<std::string>& benchmark_args,
                     const std::string& command_line) {
  auto* cmd = app.add_subcommand("run", "Run suites: check every point, time it, place it under the roofline");
  auto flags = std::make_shared<RunFlags>();
  auto& o = flags->options;
  o.benchmark_args = benchmark_args;
  o.command_line = command_line;
  cmd->add_option("--suite", o.suites, "Suites to run (default: the backend's kernel suites, gemm and attention; "
                                       "collectives and inference run when named)")->delimiter(',');
  cmd->add_option("--backend", o.backend, "Backend")->capture_default_str();
  cmd->add_option("--tier", flags->tier, "smoke (seconds), quick (before a merge: about a minute a suite on a CPU, minutes on a GPU), full (nightly)")
      ->capture_default_str()
      // Checked as parsed: `rooftop --parse-only run --tier T` refuses a tier it does not know
      // (ci/nightly.sh checks its tier so, before characterize runs).
      ->check(CLI::Validator(
          [](std::string& v) {
            try {
              parse_tier(v);
              return std::string();
            } catch (const InputError& e) {
              return std::string(e.what());
            }
          },
          "TIER"));
  cmd->add_option("--filter", o.filter, "Regular expression searched in point names, e.g. 'bf16/m2048'");
  cmd->add_option("--dtype", o.dtypes, "Only these dtypes")->delimiter(',');
  cmd->add_option("--shape", o.shapes, "Run these shapes instead of the tier's sweep (gemm: MxNxK)")->delimiter(',');
  cmd->add_option("--repetitions", o.repetitions, "Repetitions per point; each is one sample")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  cmd->add_option("--min-time", flags->min_time, "Seconds per repetition (default set by the tier)")
      ->check(finite_positive());
  cmd->add_option("--seed", flags->seed, "Seed of the random inputs (default: fresh, recorded in the results)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--out", flags->out, "Results JSON, rewritten atomically after every point (a pipe or device: once, at the end)");
  cmd->add_flag("--skip-check", flags->skip_check,
                "Timing only: skip the check against the reference (rooftop ab passes it after its first pair has "
                "checked both builds); the results say correctness null");
  cmd->add_flag("--stages", o.stages, "inference: after the repetitions, a profiling pass that times each stage "
                                      "(projections, attention, norms, ...): a point per stage on the roofline");
  cmd->add_option("--trace", o.trace, "inference: write the profiling pass as a Chrome trace (Perfetto, "
                                      "chrome://tracing): stages nested under layers and forwards");
  cmd->add_option("--prompt", flags->prompt, "inference: the prompt's token ids for the prefill and generate shapes "
                                             "(\"1,2,3\", or @FILE: ids, a JSON array, or an object with \"prompt\"); "
                                             "the shape's prompt length must match. The greedy tokens and top logits go "
                                             "to the results' outputs")
      // An empty prompt is a mistake (an unset variable, `--prompt "$IDS"`), never seeded ids.
      ->check(CLI::Validator(
          [](std::string& v) {
            return v.empty() ? std::string("it is empty; give token ids (--prompt 1,2,3) or @FILE, or leave --prompt out for "
                                           "seeded ids")
                             : std::string();
          },
          "IDS|@FILE"));
  cmd->add_option("--slo", o.slo, "inference serve points: the service-level objective, each request's time to first "
                                  "token and time per output token (default ttft=500ms,tpot=50ms); goodput counts the "
                                  "requests that meet both")
      // An empty objective is a typo, not the default: refused as parse_slo refuses it.
      ->check(CLI::Validator(
          [](std::string& v) {
            return v.empty() ? std::string("it is empty; write e.g. --slo ttft=500ms,tpot=50ms (units s, ms, us)") : std::string();
          },
          "TTFT,TPOT"));
  cmd->add_flag("--sweep-rate", o.sweep_rate, "inference serve points: search for the highest arrival rate (up to the "
                                              "shape's) whose run meets the objective at p99 and keeps up");
  cmd->add_option("--format", flags->format, "What to print on stdout")
      ->check(CLI::IsMember(reports::output_format_names()))->capture_default_str();
  cmd->add_flag("--wide", flags->wide, "table: every column and the whole implementation text (lines may pass 120 "
                                      "columns)");
  cmd->add_option("--profile", flags->profile, "Device profile (default: this device's, if characterized)");
  cmd->add_flag("--update-profile", flags->update_profile,
                "Write ceilings this run re-measured higher back to the --profile file (this device's own profile "
                "always is)");
  cmd->add_option("--cache", o.cache, "GPU timing: cold flushes the cache before each launch; auto does so when "
                                      "the point's data fits in it")
      ->transform(CLI::CheckedTransformer(std::map<std::string, CachePolicy>{
          {"auto", CachePolicy::automatic}, {"cold", CachePolicy::cold}, {"warm", CachePolicy::warm}}))
      ->option_text("auto|cold|warm (default auto)");
  cmd->add_option("--ranks", flags->ranks,
                  "collectives on cuda: start this many processes on this host, one per GPU, as torchrun does "
                  "(default: one process drives every GPU; under mpirun or srun, one rank a process)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--comm-timeout", o.comm_timeout_s,
                  "collectives and tensor-parallel inference (:tpN): seconds before a collective that has not "
                  "finished counts as a dead or hung rank (every rank then ends with exit 5)")
      ->capture_default_str()->check(finite_positive());
  cmd->callback([flags, &exit_code] { exit_code = execute_run(*flags); });
  parsed_run_flags = flags;
}

void plan_parsed_run() {
  if (!parsed_run_flags) return;
  RunOptions o = parsed_run_flags->options;
  // A backend this build does not have (the HIP build and `--backend cuda`) is the build's
  // matter, not the command line's: a real run says so; a parse does not plan it.
  const auto& built = backends();
  if (std::none_of(built.begin(), built.end(), [&](const auto& b) { return b->name() == o.backend; })) return;
  o.tier = parse_tier(parsed_run_flags->tier);
  plan_points(o, 0, std::max(parsed_run_flags->ranks, 1));
}

}  // namespace rooftop::cli
