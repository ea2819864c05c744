// Tests widgets/file_dialogs.h: a dialog listing the run store's folder leaves this process's
// POSIX locks on the store and its WAL index in place. Qt's own dialog drops them (it opens
// and closes each file to sniff its type), after which another process writing to the store
// takes itself for the last connection and deletes the WAL under the open one.
#include <QtTest>

#include <QFileSystemModel>
#include <QTemporaryDir>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

#include "core/store/run_store.h"
#include "widgets/file_dialogs.h"

namespace {

// How many POSIX locks this process holds on the file at `path`: /proc/locks names each lock's
// holder and file ("1: POSIX  ADVISORY  READ <pid> <major>:<minor>:<inode> <start> <end>").
int locksHeldOn(const QString& path) {
  struct stat file {};
  if (::stat(path.toLocal8Bit().constData(), &file) != 0) return -1;
  std::ifstream locks("/proc/locks");
  int held = 0;
  for (std::string line; std::getline(locks, line);) {
    std::istringstream fields(line);
    std::string number, kind, advisory, mode, pid, where;
    fields >> number >> kind >> advisory >> mode >> pid >> where;
    if (kind != "POSIX" || pid != std::to_string(::getpid())) continue;
    const auto colon = where.rfind(':');
    if (colon != std::string::npos && where.substr(colon + 1) == std::to_string(file.st_ino))
      ++held;
  }
  return held;
}

// A store with a run written: its connection holds locks on the file and on its WAL index.
std::unique_ptr<fl::store::RunStore> storeWithARun(const QString& path) {
  auto store = std::make_unique<fl::store::RunStore>(path.toStdString());
  const int64_t id = store->createRun({"fourier-head", "", {{"head", "linear"}}, {}, {}});
  store->writeEvents(id, {fl::MetricEvent{"test/kl", 10, 0.1, 0.5}});
  return store;
}

// Shows the dialog on `folder` and waits until its file model has listed it (icons and types
// are fetched in that listing), then asks every row's icon and type as its view would.
void listFolder(QFileDialog& dialog, const QString& folder) {
  auto* model = dialog.findChild<QFileSystemModel*>();
  QVERIFY(model);
  QSignalSpy loaded(model, &QFileSystemModel::directoryLoaded);
  dialog.setDirectory(folder);
  dialog.show();
  QTRY_VERIFY_WITH_TIMEOUT(loaded.contains(QVariantList{folder}), 10000);
  const QModelIndex root = model->index(folder);
  QVERIFY(model->rowCount(root) >= 3);  // the store, its WAL and its WAL index
  for (int row = 0; row < model->rowCount(root); ++row) {
    model->data(model->index(row, 0, root), Qt::DecorationRole);
    model->data(model->index(row, 2, root), Qt::DisplayRole);  // the type column
  }
}

}  // namespace

class TestFileDialogs : public QObject {
  Q_OBJECT

 private slots:
  void listingTheStoresFolderKeepsItsLocks() {
    QTemporaryDir dir;
    const QString db = dir.filePath("lab.db");
    auto store = storeWithARun(db);
    const int onDb = locksHeldOn(db), onIndex = locksHeldOn(db + "-shm");
    QVERIFY2(onDb > 0 && onIndex > 0, "an open store holds locks");
    auto dialog = fl::widgets::makeFileDialog(nullptr, "Export runs");
    listFolder(*dialog, dir.path());
    QCOMPARE(locksHeldOn(db), onDb);
    QCOMPARE(locksHeldOn(db + "-shm"), onIndex);
    // The types are named all the same, from the names.
    fl::widgets::NameOnlyIconProvider names;
    QCOMPARE(names.type(QFileInfo(dir.path())), QString("Folder"));
    QCOMPARE(names.type(QFileInfo(db + "-shm")), QString("DB-SHM File"));
  }

  // Why the dialogs above exist: Qt's own, on the same folder, drops the store's locks.
  void qtsOwnDialogDropsTheLocksOfWhatItLists() {
    QTemporaryDir dir;
    const QString db = dir.filePath("lab.db");
    auto store = storeWithARun(db);
    QVERIFY(locksHeldOn(db + "-shm") > 0);
    QFileDialog dialog(nullptr, "Qt's own");
    dialog.setOption(QFileDialog::DontUseNativeDialog);
    listFolder(dialog, dir.path());
    QCOMPARE(locksHeldOn(db + "-shm"), 0);
  }

  // The dialogs used to open in the folder the lab was started from (a checkout): they start
  // in the home folder, then wherever the last file was saved or folder chosen.
  void theDialogsStartWhereTheLastChoiceWas() {
    QStandardPaths::setTestModeEnabled(true);  // QSettings away from the user's
    QSettings("FourierLab", "FourierLab").remove("dialogs/folder");
    QTemporaryDir dir;
    QString started;
    std::function<void(const QString&)> answer = [&](const QString& chosen) {
      QTimer::singleShot(10, [&, chosen] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog) return answer(chosen);  // not open yet
        started = dialog->directory().absolutePath();
        dialog->selectFile(chosen);
        QMetaObject::invokeMethod(dialog, "accept");
      });
    };
    answer(dir.filePath("runs.csv"));
    QCOMPARE(fl::widgets::askSaveFileName(nullptr, "Export runs", "runs.csv", "CSV (*.csv)"),
             dir.filePath("runs.csv"));
    QCOMPARE(started, QDir::homePath());
    answer(dir.filePath("again.csv"));
    fl::widgets::askSaveFileName(nullptr, "Export runs", "runs.csv", "CSV (*.csv)");
    QCOMPARE(started, QDir(dir.path()).absolutePath());
  }
};

QTEST_MAIN(TestFileDialogs)
#include "test_file_dialogs.moc"
