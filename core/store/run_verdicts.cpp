#include "core/store/run_verdicts.h"

#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "core/engine/events.h"

namespace fl::store {

namespace {

constexpr const char* kColumns =
    "run_id, position, source, subject, label, passed, detail, value, paper_mean, paper_std, "
    "preset";

Verdict readRow(const Statement& s) {
  Verdict v;
  v.source = parseVerdictSource(s.text(2)).value_or(VerdictSource::Paper);
  v.subject = s.text(3);
  v.label = s.text(4);
  if (!s.isNull(5)) v.passed = s.int64(5) != 0;
  v.detail = s.text(6);
  v.value = s.isNull(7) ? NAN : s.real(7);
  v.paperMean = s.isNull(8) ? NAN : s.real(8);
  if (!s.isNull(9)) v.paperStd = s.real(9);
  v.preset = s.text(10);
  return v;
}

void bindNumber(Statement& s, int index, double value) {
  if (std::isfinite(value))
    s.bind(index, value);
  else
    s.bindNull(index);
}

// "0.160" -> 0.16; false unless the whole token is a number.
bool number(const std::string& token, double& out) {
  if (token.empty()) return false;
  char* end = nullptr;
  out = std::strtod(token.c_str(), &end);
  return end && *end == '\0';
}

}  // namespace

void writeVerdicts(const Database& db, int64_t runId, const std::vector<Verdict>& verdicts) {
  auto clear = db.prepare(std::string("DELETE FROM ") + kVerdictsTable + " WHERE run_id = ?");
  clear.bind(1, runId).run();
  if (verdicts.empty()) return;
  auto insert = db.prepare(std::string("INSERT INTO ") + kVerdictsTable + "(" + kColumns +
                           ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  int64_t position = 0;
  for (const auto& v : verdicts) {
    insert.bind(1, runId)
        .bind(2, position++)
        .bind(3, toString(v.source))
        .bind(4, v.subject)
        .bind(5, v.label);
    if (v.passed)
      insert.bind(6, static_cast<int64_t>(*v.passed ? 1 : 0));
    else
      insert.bindNull(6);
    insert.bind(7, v.detail);
    bindNumber(insert, 8, v.value);
    bindNumber(insert, 9, v.paperMean);
    bindNumber(insert, 10, v.paperStd.value_or(NAN));
    insert.bind(11, v.preset);
    insert.run();
  }
}

std::vector<Verdict> readVerdicts(const Database& db, int64_t runId) {
  auto s = db.prepare(std::string("SELECT ") + kColumns + " FROM " + kVerdictsTable +
                      " WHERE run_id = ? ORDER BY position");
  s.bind(1, runId);
  std::vector<Verdict> out;
  while (s.step()) out.push_back(readRow(s));
  return out;
}

std::map<int64_t, std::vector<Verdict>> readVerdicts(const Database& db, int64_t firstId,
                                                     int64_t lastId) {
  auto s = db.prepare(std::string("SELECT ") + kColumns + " FROM " + kVerdictsTable +
                      " WHERE run_id BETWEEN ? AND ? ORDER BY run_id, position");
  s.bind(1, firstId).bind(2, lastId);
  std::map<int64_t, std::vector<Verdict>> out;
  while (s.step()) out[s.int64(0)].push_back(readRow(s));
  return out;
}

bool parsePaperSentence(const std::string& sentence, Verdict& out) {
  // "<metric> <value> vs paper <mean>[ ± <std>][: within|outside the paper's spread]", the
  // metric prefixed with "best " when the paper reports the best evaluation.
  const std::string marker = " vs paper ";
  const auto at = sentence.find(marker);
  if (at == std::string::npos) return false;
  const std::string left = sentence.substr(0, at);
  const auto space = left.rfind(' ');
  if (space == std::string::npos) return false;
  Verdict v;
  v.source = VerdictSource::Paper;
  v.subject = left.substr(0, space);
  if (v.subject.rfind("best ", 0) == 0) v.subject = v.subject.substr(5);
  if (!number(left.substr(space + 1), v.value)) return false;
  std::string right = sentence.substr(at + marker.size());
  const auto colon = right.find(':');
  const std::string judged = colon == std::string::npos ? "" : right.substr(colon + 1);
  right = right.substr(0, colon);
  const std::string plusMinus = " \xC2\xB1 ";  // " ± "
  const auto pm = right.find(plusMinus);
  if (!number(right.substr(0, pm), v.paperMean)) return false;
  if (pm != std::string::npos) {
    double spread = 0;
    if (!number(right.substr(pm + plusMinus.size()), spread)) return false;
    v.paperStd = spread;
  }
  if (judged.find("within the paper's spread") != std::string::npos) v.passed = true;
  if (judged.find("outside the paper's spread") != std::string::npos) v.passed = false;
  v.label = !v.passed ? kVersusPaper : *v.passed ? kWithinPaper : kOutsidePaper;
  v.detail = sentence;
  out = v;
  return true;
}

void recoverVerdictsOfExistingRuns(const Database& db) {
  std::map<int64_t, std::vector<Verdict>> recovered;
  // The experiment's judgement: each run's latest snapshot whose meta states one.
  auto snapshots = db.prepare(
      "SELECT run_id, name, meta FROM snapshots WHERE instr(meta, '\"verdict\"') > 0 "
      "ORDER BY run_id, step");
  std::map<int64_t, Verdict> latest;
  while (snapshots.step()) {
    Snapshot s;
    s.name = snapshots.text(1);
    s.meta = nlohmann::json::parse(snapshots.text(2), nullptr, /*allow_exceptions=*/false);
    if (auto v = verdictOfSnapshot(s)) latest[snapshots.int64(0)] = *v;
  }
  auto runs = db.prepare("SELECT id, message FROM runs WHERE status = 'finished'");
  while (runs.step()) {
    const int64_t id = runs.int64(0);
    auto& verdicts = recovered[id];
    if (auto it = latest.find(id); it != latest.end()) verdicts.push_back(it->second);
    const std::string message = runs.text(1);
    size_t start = 0;
    while (start < message.size()) {
      size_t end = message.find("; ", start);
      if (end == std::string::npos) end = message.size();
      Verdict v;
      if (parsePaperSentence(message.substr(start, end - start), v)) verdicts.push_back(v);
      start = end + 2;
    }
  }
  for (const auto& [id, verdicts] : recovered)
    if (!verdicts.empty()) writeVerdicts(db, id, verdicts);
}

}  // namespace fl::store
