#include "core/cluster/shard_task.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/store/process_identity.h"
#include "core/store/sqlite_handle.h"
#include "core/study/study_store.h"

namespace fl::cluster {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

ojson cellToJson(const study::StudyCell& c) {
  return {{"cell", c.index},
          {"arm", c.arm},
          {"axes", ojson::parse(c.axes.dump())},
          {"seed", c.seed},
          {"config", ojson::parse(c.config.dump())},
          {"hash", c.hash}};
}

study::StudyCell cellFromJson(const ojson& j) {
  study::StudyCell c;
  c.index = j.at("cell").get<int64_t>();
  c.arm = j.value("arm", "");
  c.axes = nlohmann::json::parse(j.at("axes").dump());
  c.seed = j.at("seed").get<int64_t>();
  c.config = nlohmann::json::parse(j.at("config").dump());
  c.hash = j.at("hash").get<std::string>();
  return c;
}

std::string defaultScratch() {
  for (const char* name : {"SLURM_TMPDIR", "TMPDIR"})
    if (const char* v = std::getenv(name); v && *v) return v;
  return "/tmp";
}

// The files of a shard's .files folder, relative to it.
std::set<fs::path> filesUnder(const fs::path& folder) {
  std::set<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(folder, ec))
    if (entry.is_regular_file()) out.insert(fs::relative(entry.path(), folder));
  return out;
}

// Copies what is new or changed (checkpoints are written once, so size and time tell).
void syncFiles(const fs::path& from, const fs::path& to) {
  for (const auto& rel : filesUnder(from)) {
    const fs::path src = from / rel, dst = to / rel;
    std::error_code ec;
    if (fs::exists(dst, ec) && fs::file_size(dst, ec) == fs::file_size(src, ec) &&
        fs::last_write_time(dst, ec) >= fs::last_write_time(src, ec))
      continue;
    fs::create_directories(dst.parent_path());
    fs::copy_file(src, dst, fs::copy_options::overwrite_existing);
  }
}

std::string countsText(const study::StudyProgress& p) {
  return std::to_string(p.finished) + " of " + std::to_string(p.total) + " finished, " +
         std::to_string(p.failed) + " failed, " + std::to_string(p.cancelled) + " cancelled" +
         (p.interrupted ? ", " + std::to_string(p.interrupted) + " interrupted" : "");
}

}  // namespace

ojson JobFile::toJson() const {
  ojson j;
  j["fourierlab_job"] = kFormat;
  j["study"] = {
      {"uid", studyUid}, {"name", studyName}, {"experiment", experiment}, {"spec", spec.toJson()}};
  j["store"] = store;
  j["tasks"] = ojson::array();
  for (size_t t = 0; t < tasks.size(); ++t) {
    ojson cells = ojson::array();
    for (const auto& c : tasks[t]) cells.push_back(cellToJson(c));
    j["tasks"].push_back({{"task", t}, {"cells", cells}});
  }
  return j;
}

JobFile JobFile::read(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot be read (is the work folder visible here?)");
  std::stringstream text;
  text << in.rdbuf();
  try {
    const auto j = ojson::parse(text.str());
    const int format = j.at("fourierlab_job").get<int>();
    if (format > kFormat)
      throw std::runtime_error("written by a newer FourierLab (format " + std::to_string(format) +
                               ")");
    JobFile job;
    const auto& study = j.at("study");
    job.studyUid = study.at("uid").get<std::string>();
    job.studyName = study.value("name", "");
    job.experiment = study.at("experiment").get<std::string>();
    job.spec = study::StudySpec::fromJson(study.at("spec"));
    job.store = j.value("store", "");
    for (const auto& task : j.at("tasks")) {
      std::vector<study::StudyCell> cells;
      for (const auto& c : task.at("cells")) cells.push_back(cellFromJson(c));
      job.tasks.push_back(std::move(cells));
    }
    return job;
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  } catch (const std::exception& e) {  // nlohmann's errors, study::StudySpec's invalid_argument
    throw std::runtime_error(path + ": not a FourierLab job file (" + e.what() + ")");
  }
}

void JobFile::write(const std::string& path) const { writeFileAtomically(path, toJson().dump(1)); }

void writeFileAtomically(const std::string& path, const std::string& content) {
  const fs::path target = path;
  fs::create_directories(target.parent_path());
  const std::string tmp = path + ".tmp-" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << content;
    if (!out.flush()) throw std::runtime_error(tmp + ": cannot be written");
  }
  fs::rename(tmp, target);
}

int64_t ensureShardStudy(store::RunStore& shard, const JobFile& job,
                         const std::vector<study::StudyCell>& cells) {
  const auto& db = shard.database();
  {
    auto s = db.prepare("SELECT id FROM studies WHERE uid = ?");
    s.bind(1, job.studyUid);
    if (s.step()) return s.int64(0);
  }
  study::StudyExpansion expansion;
  expansion.cells = cells;
  study::StudyStore studies(shard);
  const int64_t id = studies.create(job.spec, expansion);
  // The user's study's uid: a merge recognises its own shards by it.
  auto s = db.prepare("UPDATE studies SET uid = ? WHERE id = ?");
  s.bind(1, job.studyUid).bind(2, id).run();
  return id;
}

void copyShard(const std::string& from, const std::string& to) {
  fs::create_directories(fs::path(to).parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  syncFiles(from + ".files", to + ".files");
}

void publishShard(const std::string& shardPath, const std::string& publishedPath) {
  fs::create_directories(fs::path(publishedPath).parent_path());
  const std::string tmp = publishedPath + ".tmp-" + std::to_string(getpid());
  fs::remove(tmp);
  {
    // A snapshot of the committed state, while the shard's writers go on.
    const auto source = store::Database::open(shardPath, /*create=*/false, /*readOnly=*/true);
    source.exec("PRAGMA busy_timeout = 10000");
    auto vacuum = source.prepare("VACUUM INTO ?");
    vacuum.bind(1, tmp).run();
  }
  {
    // One self-contained file: no -wal or -shm beside it on a shared file system.
    const auto copy = store::Database::open(tmp, /*create=*/false);
    copy.exec("PRAGMA journal_mode = DELETE");
  }
  const fs::path files = shardPath + ".files", published = publishedPath + ".files";
  syncFiles(files, published);
  fs::rename(tmp, publishedPath);
  // Checkpoints the shard no longer has (superseded), now that no published database names them.
  const auto keep = filesUnder(files);
  for (const auto& rel : filesUnder(published))
    if (!keep.count(rel)) fs::remove(published / rel);
}

namespace {

// The task's own report (WORK/tasks/task-I.json), rewritten whole each time.
class TaskReport {
 public:
  TaskReport(const JobFolder& folder, int task, nlohmann::json state)
      : m_path(folder.taskReport(task)), m_state(std::move(state)) {}

  nlohmann::json& state() { return m_state; }
  void write(const study::StudyProgress* p) {
    m_state["updated"] = nowSeconds();
    if (p)
      m_state["counts"] = {{"finished", p->finished},
                           {"failed", p->failed},
                           {"cancelled", p->cancelled},
                           {"active", p->active}};
    writeFileAtomically(m_path, m_state.dump(1));
  }
  void end(TaskStage stage, const std::string& message, const study::StudyProgress* p) {
    m_state["state"] = toString(stage);
    m_state["message"] = message;
    m_state["ended"] = nowSeconds();
    write(p);
  }

 private:
  std::string m_path;
  nlohmann::json m_state;
};

// Node-local scratch, one folder per attempt, made empty.
fs::path makeScratch(const ShardTaskOptions& options, const JobFile& job, int task) {
  const std::string root = options.scratchRoot.empty() ? defaultScratch() : options.scratchRoot;
  const fs::path scratch = fs::path(root) / ("fourierlab-" + job.studyUid.substr(0, 8) + "-task" +
                                             std::to_string(task) + "-" + std::to_string(getpid()));
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  return scratch;
}

// Starts the shard from what the task published before (Slurm requeued it) or from the runs a
// resubmission sends it; says which.
std::string seedShard(const JobFolder& folder, int task, const std::string& shardPath) {
  const std::string published = folder.shard(task);
  if (fs::exists(published)) {
    copyShard(published, shardPath);
    return "continued from " + published;
  }
  if (fs::exists(folder.seed(task))) {
    copyShard(folder.seed(task), shardPath);
    return "seeded from " + folder.seed(task);
  }
  return "new";
}

// Trains the task's cells into the shard, publishing it as runs end (at most every
// publishEverySeconds) and once more at the end.
study::StudyOutcome trainShard(const ExperimentRegistry& registry, const ShardTaskOptions& options,
                               const JobFile& job, const std::vector<study::StudyCell>& cells,
                               const std::string& shardPath, const std::string& published,
                               TaskReport& taskReport,
                               const study::StudyScheduler::Reporter& report) {
  int64_t studyId = 0;
  {
    store::RunStore shard(shardPath);
    studyId = ensureShardStudy(shard, job, cells);
  }
  study::StudyScheduler scheduler(registry, shardPath, studyId, options.scheduler);
  auto lastPublish = std::chrono::steady_clock::now();
  const auto outcome = scheduler.run([&](const study::StudyRunReport& r,
                                         const study::StudyProgress& p) {
    report(r, p);
    if (!r.ended) return;
    taskReport.write(&p);
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - lastPublish).count() >= options.publishEverySeconds) {
      publishShard(shardPath, published);
      lastPublish = now;
    }
  });
  publishShard(shardPath, published);
  return outcome;
}

// done when every cell finished, cancelled (128 + the signal) when stopped, failed otherwise.
void judgeOutcome(const ShardTaskOptions& options, ShardTaskOutcome& outcome) {
  const auto& p = outcome.study.progress;
  if (outcome.study.cancelled) {
    outcome.state = TaskStage::Cancelled;
    const int signal = options.scheduler.stopFlag ? options.scheduler.stopFlag->load() : 0;
    outcome.exitCode = 128 + (signal ? signal : 15);
  } else if (p.finished == p.total) {
    outcome.state = TaskStage::Done;
  } else {
    outcome.state = TaskStage::Failed;
    outcome.exitCode = 1;
  }
}

}  // namespace

ShardTaskOutcome runShardTask(const ExperimentRegistry& registry, const ShardTaskOptions& options,
                              const study::StudyScheduler::Reporter& report) {
  const JobFolder& folder = options.folder;
  const JobFile job = JobFile::read(folder.jobFile());
  if (options.task < 0 || options.task >= static_cast<int>(job.tasks.size()))
    throw std::runtime_error(folder.jobFile() + " has tasks 0 to " +
                             std::to_string(job.tasks.size() - 1) + ", not " +
                             std::to_string(options.task));
  const int task = options.task;
  const auto& cells = job.tasks[static_cast<size_t>(task)];
  const fs::path scratch = makeScratch(options, job, task);
  const std::string shardPath = (scratch / JobFolder::shardName(task)).string();
  const std::string published = folder.shard(task);
  const std::string origin = seedShard(folder, task, shardPath);

  const auto me = store::currentProcess();
  TaskReport taskReport(folder, task,
                        {{"task", task},
                         {"state", toString(TaskStage::Running)},
                         {"host", me.host},
                         {"pid", me.pid},
                         {"slurm_job", options.slurmJobId},
                         {"runs", cells.size()},
                         {"shard", published},
                         {"scratch", shardPath},
                         {"origin", origin},
                         {"started", nowSeconds()}});
  taskReport.write(nullptr);

  ShardTaskOutcome outcome;
  outcome.shard = published;
  try {
    outcome.study =
        trainShard(registry, options, job, cells, shardPath, published, taskReport, report);
  } catch (const std::exception& e) {
    // What did finish is published all the same; the scratch copy stays for a look.
    try {
      if (fs::exists(shardPath)) publishShard(shardPath, published);
    } catch (const std::exception&) {
    }
    taskReport.end(TaskStage::Failed, e.what(), nullptr);
    throw;
  }
  judgeOutcome(options, outcome);
  taskReport.end(outcome.state, countsText(outcome.study.progress), &outcome.study.progress);
  std::error_code ec;
  fs::remove_all(scratch, ec);
  return outcome;
}

}  // namespace fl::cluster
