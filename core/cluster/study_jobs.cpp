#include "core/cluster/study_jobs.h"

#include <chrono>
#include <filesystem>
#include <map>

namespace fl::cluster {

namespace fs = std::filesystem;
using store::Transaction;

namespace {

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string fileSignature(const std::string& path) {
  std::error_code ec;
  const auto bytes = fs::file_size(path, ec);
  if (ec) return "";
  const auto time = fs::last_write_time(path, ec);
  if (ec) return "";
  return std::to_string(bytes) + ":" +
         std::to_string(
             std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count());
}

int64_t StudyJobs::record(const StudyJob& job) {
  const auto& db = m_runs.database();
  Transaction tx(db);
  auto insert = db.prepare(
      "INSERT INTO study_jobs(study_id, scheduler, job_id, work_dir, tasks, options, submitted) "
      "VALUES (?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, job.studyId)
      .bind(2, job.scheduler)
      .bind(3, job.jobId)
      .bind(4, job.workDir)
      .bind(5, static_cast<int64_t>(job.tasks.size()))
      .bind(6, job.options.dump())
      .bind(7, job.submitted > 0 ? job.submitted : nowSeconds())
      .run();
  const int64_t row = db.lastInsertId();
  auto task = db.prepare("INSERT INTO study_job_tasks(job, task, cells) VALUES (?, ?, ?)");
  for (const auto& t : job.tasks)
    task.bind(1, row).bind(2, t.task).bind(3, nlohmann::json(t.cells).dump()).run();
  tx.commit();
  return row;
}

std::vector<StudyJob> StudyJobs::ofStudy(int64_t studyId) const {
  const auto& db = m_runs.database();
  auto s = db.prepare(
      "SELECT id, scheduler, job_id, work_dir, options, submitted FROM study_jobs "
      "WHERE study_id = ? ORDER BY id");
  s.bind(1, studyId);
  std::vector<StudyJob> out;
  std::map<int64_t, size_t> index;
  while (s.step()) {
    StudyJob job;
    job.id = s.int64(0);
    job.studyId = studyId;
    job.scheduler = s.text(1);
    job.jobId = s.text(2);
    job.workDir = s.text(3);
    job.options = nlohmann::json::parse(s.text(4), nullptr, /*allow_exceptions=*/false);
    job.submitted = s.real(5);
    index[job.id] = out.size();
    out.push_back(std::move(job));
  }
  auto tasks = db.prepare(
      "SELECT t.job, t.task, t.cells, t.collected, t.shard_signature FROM study_job_tasks t "
      "JOIN study_jobs j ON j.id = t.job WHERE j.study_id = ? ORDER BY t.job, t.task");
  tasks.bind(1, studyId);
  while (tasks.step()) {
    StudyJobTask t;
    t.task = static_cast<int>(tasks.int64(1));
    t.cells = nlohmann::json::parse(tasks.text(2)).get<std::vector<int64_t>>();
    if (!tasks.isNull(3)) t.collected = tasks.real(3);
    t.shardSignature = tasks.text(4);
    out[index.at(tasks.int64(0))].tasks.push_back(std::move(t));
  }
  return out;
}

void StudyJobs::markCollected(int64_t jobRow, int task, const std::string& shardSignature) {
  auto s = m_runs.database().prepare(
      "UPDATE study_job_tasks SET collected = ?, shard_signature = ? WHERE job = ? AND task = ?");
  s.bind(1, nowSeconds()).bind(2, shardSignature).bind(3, jobRow).bind(4, task).run();
}

}  // namespace fl::cluster
