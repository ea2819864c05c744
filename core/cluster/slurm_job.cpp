#include "core/cluster/slurm_job.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "core/cluster/external_command.h"
#include "core/store/process_identity.h"
#include "core/store/run_copy.h"
#include "core/study/study_store.h"

namespace fl::cluster {

namespace fs = std::filesystem;

namespace {

constexpr int kSlurmTimeoutMs = 30000;

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Safe inside an #SBATCH line and a --output pattern: no spaces, quotes, '%' or control bytes.
std::optional<std::string> checkPathText(const std::string& option, const std::string& value) {
  for (char c : value)
    if (std::isspace(static_cast<unsigned char>(c)) || c == '%' || c == '"' || c == '\'' ||
        c == '\\' || static_cast<unsigned char>(c) < 32)
      return option + " " + value +
             ": Slurm's script cannot hold this path (no spaces, quotes, '%' or '\\'); "
             "choose another";
  return std::nullopt;
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Letters, digits, '-' and '_' only: a job name and a folder name.
std::string slug(const std::string& text, size_t max = 40) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
    if (out.size() >= max) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "study" : out;
}

// One line of text for a comment: no newlines or control bytes.
std::string oneLine(const std::string& text) {
  std::string out;
  for (char c : text) out += static_cast<unsigned char>(c) < 32 ? ' ' : c;
  return out;
}

std::string defaultWorkDir(const std::string& storePath, const study::StudySpec& spec) {
  const fs::path base =
      fs::path(storePath + ".slurm") / (slug(spec.name) + "-" + study::specHash(spec).substr(0, 8));
  for (int n = 1;; ++n) {
    const fs::path candidate = base / ("job-" + std::to_string(n));
    if (!fs::exists(candidate)) return candidate.string();
  }
}

// Cells dealt round robin: a study's settings are declared in order (e.g. all Fourier heads,
// then the baselines), so every task gets a similar mix and they end at similar times.
std::vector<std::vector<study::StudyCell>> dealRoundRobin(
    const std::vector<study::StudyCell>& cells, int tasks) {
  std::vector<std::vector<study::StudyCell>> out(static_cast<size_t>(tasks));
  for (size_t i = 0; i < cells.size(); ++i) out[i % out.size()].push_back(cells[i]);
  return out;
}

// Batched: `groups` (formed as `sweep run` forms them) each whole to the task holding the
// fewest cells so far, largest first. Tasks that got nothing are dropped; each task's cells are
// in study order.
std::vector<std::vector<study::StudyCell>> dealGroups(
    const std::map<int64_t, const study::StudyCell*>& byIndex,
    std::vector<std::vector<int64_t>> groups, int tasks) {
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.size() > b.size(); });
  std::vector<std::vector<study::StudyCell>> out(static_cast<size_t>(tasks));
  for (const auto& group : groups) {
    auto& task = *std::min_element(
        out.begin(), out.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
    for (int64_t cell : group) task.push_back(*byIndex.at(cell));
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const auto& t) { return t.empty(); }),
            out.end());
  for (auto& task : out)
    std::sort(task.begin(), task.end(), [](const study::StudyCell& a, const study::StudyCell& b) {
      return a.index < b.index;
    });
  return out;
}

// The array's tasks and their cells. --tasks 0 means one task per run, or batched one per
// group; batched with --tasks N, groups are split (auto) until there are N where they can be.
std::vector<std::vector<study::StudyCell>> dealCells(const std::vector<study::StudyCell>& cells,
                                                     const SlurmOptions& options,
                                                     const std::string& experimentName) {
  const size_t wanted = options.tasks > 0 ? static_cast<size_t>(options.tasks) : cells.size();
  const int tasks = static_cast<int>(std::min({wanted, cells.size(), size_t(kMaxArrayTasks)}));
  const auto experiment = options.registry ? options.registry->find(experimentName) : nullptr;
  if (options.batch.isOff() || !experiment || cells.size() < 2) return dealRoundRobin(cells, tasks);
  std::map<int64_t, const study::StudyCell*> byIndex;
  std::vector<int64_t> indices;
  for (const auto& c : cells) {
    byIndex[c.index] = &c;
    indices.push_back(c.index);
  }
  auto groups = study::formRunGroups(
      indices, [&](int64_t cell) { return byIndex.at(cell)->config; }, *experiment, options.batch,
      options.tasks == 0 ? 1 : tasks);
  const int dealt = options.tasks == 0
                        ? static_cast<int>(std::min(groups.size(), size_t(kMaxArrayTasks)))
                        : tasks;
  return dealGroups(byIndex, std::move(groups), dealt);
}

void finishPlan(SlurmJobPlan& plan, const std::string& storePath,
                const std::vector<study::StudyCell>& cells) {
  plan.job.store = storePath;
  plan.job.tasks = dealCells(cells, plan.options, plan.job.experiment);
  std::string root = plan.options.workDir.empty() ? defaultWorkDir(storePath, plan.job.spec)
                                                  : plan.options.workDir;
  plan.folder.root = fs::absolute(root).lexically_normal().string();
  if (auto problem = checkPathText("--work-dir", plan.folder.root)) throw SlurmError(*problem);
  plan.script = sbatchScript(plan);
}

// Slurm's states as the four a study shows.
std::pair<TaskStage, std::string> fromSlurmState(const std::string& slurm) {
  static const std::set<std::string> queued = {"PENDING",     "REQUEUED",      "REQUEUE_HOLD",
                                               "REQUEUE_FED", "RESV_DEL_HOLD", "CONFIGURING"};
  static const std::set<std::string> running = {"RUNNING",   "COMPLETING", "STAGE_OUT", "SIGNALING",
                                                "SUSPENDED", "STOPPED",    "RESIZING"};
  if (queued.count(slurm)) return {TaskStage::Queued, slurm == "PENDING" ? "" : slurm};
  if (running.count(slurm)) return {TaskStage::Running, slurm == "RUNNING" ? "" : slurm};
  if (slurm == "COMPLETED") return {TaskStage::Done, ""};
  return {TaskStage::Failed,
          slurm};  // CANCELLED, FAILED, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY...
}

std::string firstWord(const std::string& text) {
  std::istringstream in(text);
  std::string word;
  in >> word;
  return word;
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

// "2-5,7%2" -> 2 3 4 5 7
std::vector<int> expandRanges(const std::string& text) {
  std::vector<int> out;
  std::stringstream list(text.substr(0, text.find('%')));
  std::string part;
  while (std::getline(list, part, ',')) {
    const auto dash = part.find('-');
    try {
      const int from = std::stoi(part.substr(0, dash));
      const int to = dash == std::string::npos ? from : std::stoi(part.substr(dash + 1));
      for (int i = from; i <= to && out.size() < 100000; ++i) out.push_back(i);
    } catch (const std::exception&) {
    }
  }
  return out;
}

// Array task -> Slurm state, from squeue (`-r`: one line per task, pending ones included);
// nullopt when squeue does not answer (not installed, no controller). squeue answers with an
// error for a job id it has forgotten: that is an answer (no tasks), not silence.
std::optional<std::map<int, std::string>> squeueStates(const std::string& jobId) {
  const auto r = runCommand({"squeue", "-h", "-r", "-j", jobId, "--states=all", "-o", "%K|%T"},
                            kSlurmTimeoutMs);
  std::map<int, std::string> out;
  if (!r.started || r.timedOut) return std::nullopt;
  if (!r.ok()) {
    if (r.err.find("Invalid job id") != std::string::npos) return out;
    return std::nullopt;
  }
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    const auto bar = line.find('|');
    if (bar == std::string::npos) continue;
    for (int task : expandRanges(trimmed(line.substr(0, bar))))
      out[task] = trimmed(line.substr(bar + 1));
  }
  return out;
}

// The same from sacct, for jobs squeue has forgotten (needs accounting: slurmdbd).
std::map<int, std::string> sacctStates(const std::string& jobId) {
  const auto r =
      runCommand({"sacct", "-n", "-P", "-X", "-j", jobId, "-o", "JobID,State"}, kSlurmTimeoutMs);
  std::map<int, std::string> out;
  if (!r.ok()) return out;
  std::istringstream lines(r.out);
  std::string line;
  static const std::regex one(R"(^\d+_(\d+)$)"), many(R"(^\d+_\[([0-9,\-%]+)\]$)");
  while (std::getline(lines, line)) {
    const auto bar = line.find('|');
    if (bar == std::string::npos) continue;
    const std::string id = trimmed(line.substr(0, bar));
    const std::string state = firstWord(line.substr(bar + 1));  // "CANCELLED by 0"
    std::smatch m;
    if (std::regex_match(id, m, one))
      out[std::stoi(m[1])] = state;
    else if (std::regex_match(id, m, many))
      for (int task : expandRanges(m[1])) out[task] = state;
  }
  return out;
}

nlohmann::json readReport(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace

size_t SlurmJobPlan::runs() const {
  size_t n = 0;
  for (const auto& t : job.tasks) n += t.size();
  return n;
}

std::optional<std::string> checkSlurmOptions(const SlurmOptions& o) {
  static const std::regex time(R"(^(\d+-\d{1,2}(:\d{1,2}){0,2}|\d+(:\d{1,2}){0,2})$)");
  static const std::regex mem(R"(^\d+[KMGTkmgt]?$)");
  static const std::regex partition(R"(^[A-Za-z0-9_.\-]+(,[A-Za-z0-9_.\-]+)*$)");
  if (!o.time.empty() && !std::regex_match(o.time, time))
    return "--time " + o.time +
           ": not a Slurm time limit (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS)";
  if (!o.mem.empty() && !std::regex_match(o.mem, mem))
    return "--mem " + o.mem + ": not a Slurm memory size (a number with K, M, G or T: 4G)";
  if (!o.partition.empty() && !std::regex_match(o.partition, partition))
    return "--partition " + o.partition + ": not a partition name (letters, digits, . _ -)";
  if (o.cpusPerTask < 1 || o.cpusPerTask > 1024)
    return "--cpus-per-task " + std::to_string(o.cpusPerTask) + ": must be 1 to 1024";
  if (o.maxParallel < 0)
    return "--max-parallel " + std::to_string(o.maxParallel) + ": must be >= 1";
  if (o.tasks < 0 || o.tasks > kMaxArrayTasks)
    return "--tasks " + std::to_string(o.tasks) + ": must be 1 to " +
           std::to_string(kMaxArrayTasks) + " (Slurm's default MaxArraySize)";
  if (o.cliPath.empty()) return std::string("the path of fourierlab-cli on the nodes is unknown");
  if (auto p = checkPathText("fourierlab-cli", o.cliPath)) return p;
  if (!o.workDir.empty())
    if (auto p = checkPathText("--work-dir", fs::absolute(o.workDir).string())) return p;
  if (!o.scratch.empty())
    if (auto p = checkPathText("--scratch", o.scratch)) return p;
  return std::nullopt;
}

SlurmJobPlan planSlurmJob(store::RunStore& store, int64_t studyId, const SlurmOptions& options) {
  if (auto problem = checkSlurmOptions(options)) throw SlurmError(*problem);
  study::StudyStore studies(store);
  const auto record = studies.study(studyId);
  if (!record) throw store::StoreError(store.path(), "has no study " + std::to_string(studyId));
  SlurmJobPlan plan;
  plan.studyId = studyId;
  plan.options = options;
  plan.job.studyUid = record->uid;
  plan.job.studyName = record->name;
  plan.job.experiment = record->experiment;
  plan.job.spec = record->spec;

  std::set<int64_t> held;
  for (const auto& job : StudyJobs(store).ofStudy(studyId))
    for (const auto& t : taskStates(job))
      if (t.state == TaskStage::Queued || t.state == TaskStage::Running)
        held.insert(t.cells.begin(), t.cells.end());

  auto s = store.database().prepare(
      "SELECT c.cell, c.arm, c.axes, c.seed, c.config, c.config_hash, coalesce(c.run_id, 0), "
      "coalesce(r.status, ''), coalesce(r.host, ''), coalesce(r.pid, 0), "
      "coalesce(r.pid_start, 0) FROM study_cells c LEFT JOIN runs r ON r.id = c.run_id "
      "WHERE c.study_id = ? ORDER BY c.cell");
  s.bind(1, studyId);
  std::vector<study::StudyCell> cells;
  while (s.step()) {
    const auto status = store::parseRunStatus(s.text(7));  // none without a run
    if (status == RunStatus::Finished) continue;
    study::StudyCell c;
    c.index = s.int64(0);
    c.arm = s.text(1);
    c.axes = nlohmann::json::parse(s.text(2));
    c.seed = s.int64(3);
    c.config = nlohmann::json::parse(s.text(4));
    c.hash = s.text(5);
    const store::ProcessIdentity writer{s.text(8), s.int64(9), s.int64(10)};
    if ((status == RunStatus::Running || status == RunStatus::Queued) &&
        store::livenessOf(writer) != store::Liveness::Dead) {
      plan.heldLocally.push_back(c.index);
      continue;
    }
    if (held.count(c.index)) {
      plan.heldByActiveTasks.push_back(c.index);
      continue;
    }
    if (s.int64(6) != 0) plan.continued.push_back(c.index);
    cells.push_back(std::move(c));
  }
  finishPlan(plan, store.path(), cells);
  for (const auto& job : StudyJobs(store).ofStudy(studyId))
    if (fs::path(job.workDir) == fs::path(plan.folder.root))
      throw SlurmError("--work-dir " + plan.folder.root + " holds job " + job.jobId +
                       " of this study already; choose another folder");
  return plan;
}

SlurmJobPlan planNewStudyJob(const std::string& storePath, const study::StudySpec& spec,
                             const study::StudyExpansion& expansion, const SlurmOptions& options) {
  if (auto problem = checkSlurmOptions(options)) throw SlurmError(*problem);
  SlurmJobPlan plan;
  plan.options = options;
  plan.job.studyUid = "(given when the study is stored)";
  plan.job.studyName = spec.name;
  plan.job.experiment = spec.experiment;
  plan.job.spec = spec;
  finishPlan(plan, fs::absolute(storePath).lexically_normal().string(), expansion.cells);
  return plan;
}

std::string sbatchScript(const SlurmJobPlan& plan) {
  const auto& o = plan.options;
  const auto& f = plan.folder;
  const int tasks = static_cast<int>(plan.job.tasks.size());
  std::ostringstream s;
  s << "#!/bin/bash\n";
  s << "# FourierLab study " << (plan.studyId ? std::to_string(plan.studyId) + " " : std::string())
    << "\"" << oneLine(plan.job.studyName) << "\" (" << plan.job.experiment << ", uid "
    << plan.job.studyUid << "): " << plan.runs() << " runs in " << tasks << " array tasks.\n";
  s << "# Task i trains its cells (job.json) into a shard on the node's disk and publishes it to\n"
    << "# " << f.shardsDir() << "; `fourierlab-cli sweep collect"
    << (plan.studyId ? " " + std::to_string(plan.studyId) : std::string()) << "` merges the\n"
    << "# shards into " << plan.job.store << ".\n";
  s << "#SBATCH --job-name=fl-" << slug(plan.job.studyName, 32) << "\n";
  s << "#SBATCH --array=0-" << std::max(tasks - 1, 0)
    << (o.maxParallel > 0 ? "%" + std::to_string(o.maxParallel) : std::string()) << "\n";
  s << "#SBATCH --ntasks=1\n";
  s << "#SBATCH --cpus-per-task=" << o.cpusPerTask << "\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  if (!o.time.empty()) s << "#SBATCH --time=" << o.time << "\n";
  if (!o.mem.empty()) s << "#SBATCH --mem=" << o.mem << "\n";
  s << "#SBATCH --chdir=" << f.root << "\n";
  s << "#SBATCH --output=" << f.logPattern() << "\n";
  // SIGTERM a minute before the time limit: every run checkpoints, the shard is published.
  s << "#SBATCH --signal=B:TERM@60\n";
  s << "exec " << shellQuote(o.cliPath) << " sweep work " << shellQuote(f.root)
    << " --task \"$SLURM_ARRAY_TASK_ID\"";
  if (!o.scratch.empty()) s << " --scratch " << shellQuote(o.scratch);
  s << " --batch " << o.batch.argument();
  if (!o.device.empty()) s << " --device " << shellQuote(o.device);
  s << "\n";
  return s.str();
}

StudyJob writeJobFolder(store::RunStore& store, const SlurmJobPlan& plan) {
  if (plan.studyId == 0) throw SlurmError("the study is not stored: nothing to submit");
  if (plan.job.tasks.empty()) throw SlurmError("every run of the study is finished or taken");
  const JobFolder& f = plan.folder;
  for (const auto& dir : {f.root, f.shardsDir(), f.root + "/logs", f.root + "/tasks"})
    fs::create_directories(dir);
  plan.job.write(f.jobFile());
  writeFileAtomically(f.script(), plan.script);
  fs::permissions(f.script(), fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);

  // Seeds: the stopped and failed runs each task continues, copied with their checkpoints.
  const std::set<int64_t> continued(plan.continued.begin(), plan.continued.end());
  for (size_t t = 0; t < plan.job.tasks.size(); ++t) {
    const auto& cells = plan.job.tasks[t];
    if (std::none_of(cells.begin(), cells.end(),
                     [&](const study::StudyCell& c) { return continued.count(c.index) > 0; }))
      continue;
    const std::string seedPath = f.seed(static_cast<int>(t));
    fs::remove(seedPath);
    fs::remove_all(seedPath + ".files");
    store::RunStore seed(seedPath);
    const int64_t seedStudy = ensureShardStudy(seed, plan.job, cells);
    std::vector<std::string> written;
    try {
      store::Transaction tx(seed.database());
      auto runOf = store.database().prepare(
          "SELECT run_id FROM study_cells WHERE study_id = ? AND cell = ?");
      auto link = seed.database().prepare(
          "UPDATE study_cells SET run_id = ? WHERE study_id = ? AND cell = ?");
      for (const auto& c : cells) {
        if (!continued.count(c.index)) continue;
        runOf.bind(1, plan.studyId).bind(2, c.index);
        if (!runOf.step() || runOf.isNull(0)) {
          runOf.reset();
          continue;
        }
        const int64_t runId = runOf.int64(0);
        runOf.reset();
        const auto copy = store::copyRun(store.database(), runId, seed);
        written.insert(written.end(), copy.writtenFiles.begin(), copy.writtenFiles.end());
        link.bind(1, copy.id).bind(2, seedStudy).bind(3, c.index).run();
      }
      tx.commit();
    } catch (...) {
      for (const auto& file : written) fs::remove(file);
      throw;
    }
  }

  StudyJob job;
  job.studyId = plan.studyId;
  job.scheduler = "slurm";
  job.workDir = f.root;
  job.submitted = nowSeconds();
  job.options = {{"partition", plan.options.partition},
                 {"time", plan.options.time},
                 {"mem", plan.options.mem},
                 {"cpus_per_task", plan.options.cpusPerTask},
                 {"max_parallel", plan.options.maxParallel},
                 {"scratch", plan.options.scratch},
                 {"continued", plan.continued}};
  for (size_t t = 0; t < plan.job.tasks.size(); ++t) {
    StudyJobTask task;
    task.task = static_cast<int>(t);
    for (const auto& c : plan.job.tasks[t]) task.cells.push_back(c.index);
    job.tasks.push_back(std::move(task));
  }
  return job;
}

StudyJob submitSlurmJob(store::RunStore& store, const SlurmJobPlan& plan) {
  StudyJob job = writeJobFolder(store, plan);
  // A job not submitted: its script and job file stay for a look; the seeds go, as copies of
  // runs and their checkpoints no task will read (each refused try had left a full set).
  const auto notSubmitted = [&](const std::string& why) {
    std::error_code ignored;
    fs::remove_all(plan.folder.root + "/seeds", ignored);
    return SbatchRefused(why + "; nothing was submitted (its script and job file stay in " +
                         plan.folder.root + " for a look)");
  };
  const auto r = runCommand({"sbatch", "--parsable", plan.folder.script()}, kSlurmTimeoutMs);
  if (!r.ok()) throw notSubmitted("sbatch refused the job: " + r.describe("sbatch"));
  // `--parsable` prints "ID" or "ID;CLUSTER"; a wrapper may print "Submitted batch job ID".
  // Anything else is no id: "Submitted batch job" alone had been recorded as the job's id.
  static const std::regex parsable(R"((\d+)(;\S*)?\s*$)");
  std::smatch id;
  const std::string answer = trimmed(r.out);
  if (!std::regex_search(answer, id, parsable))
    throw SbatchAnswerUnclear(
        "sbatch answered '" + answer +
        "' where it prints the job's id (--parsable): the job may have been "
        "submitted, and is not recorded with the study; `squeue --me` shows it");
  job.jobId = id[1].str();
  job.id = StudyJobs(store).record(job);
  return job;
}

std::vector<TaskState> taskStates(const StudyJob& job) {
  std::string source = "squeue";
  const auto answered = squeueStates(job.jobId);
  auto slurm = answered.value_or(std::map<int, std::string>{});
  if (slurm.empty()) {
    slurm = sacctStates(job.jobId);
    source = "sacct";
  }
  // Slurm answered and does not know the task: it is not queued or running any more.
  const bool slurmForgot = answered.has_value();
  std::vector<TaskState> out;
  const JobFolder f = job.folder();
  for (const auto& t : job.tasks) {
    TaskState s;
    s.task = t.task;
    s.cells = t.cells;
    s.report = readReport(f.taskReport(t.task));
    const std::string signature = fileSignature(f.shard(t.task));
    s.published = !signature.empty();
    s.collected = s.published && t.collected && signature == t.shardSignature;
    const std::string reported =
        s.report.is_object() ? s.report.value("state", std::string()) : std::string();
    if (auto it = slurm.find(t.task); it != slurm.end()) {
      std::tie(s.state, s.detail) = fromSlurmState(it->second);
      s.source = source;
    } else if (!reported.empty()) {
      s.source = "task report";
      const auto stage = taskStageFromString(reported);
      if (stage == TaskStage::Running) {
        // Slurm no longer knows it: it ended without a last word (SIGKILL, node failure)
        // unless no Slurm command answers here at all.
        s.state = slurmForgot ? TaskStage::Failed : TaskStage::Running;
        if (slurmForgot) s.detail = "ended without a last report (killed?)";
      } else {
        s.state = stage == TaskStage::Done ? TaskStage::Done : TaskStage::Failed;
        if (stage != TaskStage::Done && stage != TaskStage::Failed)
          s.detail = reported;  // cancelled, or a word this build does not know
      }
    } else {
      s.source = "task report";
      s.state = slurmForgot ? TaskStage::Failed : TaskStage::Queued;
      s.detail = slurmForgot ? "never started (cancelled while queued?)" : "no report yet";
    }
    out.push_back(std::move(s));
  }
  return out;
}

bool slurmAvailable() { return onPath("sbatch"); }

}  // namespace fl::cluster
