#include "app/gui/stopped_at_close.h"

#include <QFileInfo>
#include <QSettings>
#include <QStringList>

#include "core/engine/spoken_list.h"

namespace fl::gui {

namespace {

// One group per store, by its absolute path: two stores' windows keep their own lists.
QString groupFor(const std::string& storePath) {
  QString key = QFileInfo(QString::fromStdString(storePath)).absoluteFilePath();
  key.replace('/', '|');  // QSettings reads '/' as a group separator
  return "stoppedAtClose/" + key;
}

// "#A, #B and #C", the first `named` of them, the rest counted ("and 6 more").
QString runList(const std::vector<int64_t>& runs, size_t named) {
  std::vector<std::string> items;
  for (size_t i = 0; i < runs.size() && i < named; ++i)
    items.push_back("#" + std::to_string(runs[i]));
  if (runs.size() > named) items.push_back(std::to_string(runs.size() - named) + " more");
  return QString::fromStdString(spokenList(items));
}

// How the runs go on: their study's Resume study, or each row's Resume.
QString howToResume(bool one, int64_t studyId, bool fromCheckpoint) {
  if (studyId > 0) return QString("Resume study (the Study tab) trains study %1 on").arg(studyId);
  return QString("Resume in %1 menu continues %2")
             .arg(one ? "its row's" : "each row's", one ? "it" : "them") +
         (fromCheckpoint ? QString(" from %1 last checkpoint").arg(one ? "its" : "their")
                         : QString());
}

}  // namespace

void rememberStoppedAtClose(const std::string& storePath, const std::vector<int64_t>& runs,
                            int64_t studyId) {
  // A window that stopped nothing leaves another window's list as it is.
  if (runs.empty()) return;
  QSettings settings("FourierLab", "FourierLab");
  settings.remove(groupFor(storePath));
  QStringList ids;
  for (const int64_t id : runs) ids << QString::number(id);
  settings.beginGroup(groupFor(storePath));
  settings.setValue("runs", ids.join(','));
  settings.setValue("study", QString::number(studyId));
  settings.endGroup();
}

StoppedAtClose takeStoppedAtClose(const std::string& storePath) {
  QSettings settings("FourierLab", "FourierLab");
  StoppedAtClose stopped;
  settings.beginGroup(groupFor(storePath));
  for (const QString& id : settings.value("runs").toString().split(',', Qt::SkipEmptyParts)) {
    bool ok = false;
    const qlonglong value = id.toLongLong(&ok);
    if (ok && value > 0) stopped.runs.push_back(value);
  }
  stopped.studyId = settings.value("study").toLongLong();
  settings.endGroup();
  settings.remove(groupFor(storePath));
  return stopped;
}

QString describeStoppedAtClose(const std::vector<int64_t>& runs, int64_t studyId) {
  // No word of a checkpoint: a run still waiting when the window closed never started.
  const bool one = runs.size() == 1;
  return QString("%1 %2 %3 stopped when the window last closed: %4")
      .arg(one ? "Run" : "Runs", runList(runs, runs.size()), one ? "was" : "were",
           howToResume(one, studyId, /*fromCheckpoint=*/false));
}

QString describeInterruptedAtOpen(const std::vector<int64_t>& runs, int64_t studyId) {
  // A long queue's runs are counted past the first few, the line kept to the status bar.
  constexpr size_t kNamed = 4;
  const bool one = runs.size() == 1;
  return QString(
             "%1 %2 %3 interrupted: the process training %4 ended without finishing (a crash "
             "or a kill). %5")
      .arg(one ? "Run" : "Runs", runList(runs, kNamed), one ? "was" : "were", one ? "it" : "them",
           howToResume(one, studyId, /*fromCheckpoint=*/true));
}

}  // namespace fl::gui
