#include "widgets/file_dialogs.h"

#include <QDir>
#include <QFileInfo>
#include <QMimeDatabase>
#include <QSettings>
#include <QTemporaryDir>

namespace fl::widgets {

QIcon NameOnlyIconProvider::icon(const QFileInfo& info) const {
  return icon(info.isDir() ? QFileIconProvider::Folder : QFileIconProvider::File);
}

QString NameOnlyIconProvider::type(const QFileInfo& info) const {
  if (info.isDir()) return "Folder";
  // By the name's extension only: MatchExtension never opens the file.
  const QMimeType mime = QMimeDatabase().mimeTypeForFile(info, QMimeDatabase::MatchExtension);
  if (!mime.isDefault()) return mime.comment();
  return info.suffix().isEmpty() ? QString("File") : info.suffix().toUpper() + " File";
}

std::unique_ptr<QFileDialog> makeFileDialog(QWidget* parent, const QString& caption,
                                            const QString& directory, const QString& filter) {
  // Built on an empty folder: Qt lists the folder a dialog is built on at once, on a thread of
  // its own and with its own icon provider, before this one can be given.
  const QTemporaryDir empty;
  auto dialog = std::make_unique<QFileDialog>(
      parent, caption, empty.isValid() ? empty.path() : QDir::rootPath(), filter);
  dialog->setOption(QFileDialog::DontUseNativeDialog);
  auto* provider = new NameOnlyIconProvider;
  // The dialog does not own its icon provider: deleted with it (its file model, which uses the
  // provider, is deleted before the dialog says it is destroyed).
  QObject::connect(dialog.get(), &QObject::destroyed, [provider] { delete provider; });
  dialog->setIconProvider(provider);
  dialog->setDirectory(directory.isEmpty() ? QDir::currentPath() : directory);
  return dialog;
}

namespace {

// Where the last file was saved or folder chosen: the next dialog starts there, not in the
// folder the lab was started from (a checkout, say). The home folder before any.
QString startFolder() {
  const QString last = QSettings("FourierLab", "FourierLab").value("dialogs/folder").toString();
  return !last.isEmpty() && QFileInfo(last).isDir() ? last : QDir::homePath();
}

void rememberFolder(const QString& folder) {
  QSettings("FourierLab", "FourierLab").setValue("dialogs/folder", folder);
}

}  // namespace

QString askSaveFileName(QWidget* parent, const QString& caption, const QString& suggested,
                        const QString& filter, QFileDialog::Options options) {
  auto dialog = makeFileDialog(parent, caption, startFolder(), filter);
  dialog->setOptions(dialog->options() | options);
  dialog->setAcceptMode(QFileDialog::AcceptSave);
  dialog->setFileMode(QFileDialog::AnyFile);
  if (!suggested.isEmpty()) dialog->selectFile(suggested);
  if (dialog->exec() != QDialog::Accepted || dialog->selectedFiles().isEmpty()) return {};
  const QString chosen = dialog->selectedFiles().front();
  rememberFolder(QFileInfo(chosen).absolutePath());
  return chosen;
}

QString askOpenFileName(QWidget* parent, const QString& caption, const QString& current) {
  const QFileInfo shown(current);
  auto dialog = makeFileDialog(
      parent, caption,
      !current.isEmpty() && shown.dir().exists() ? shown.absolutePath() : startFolder());
  dialog->setFileMode(QFileDialog::ExistingFile);
  dialog->setAcceptMode(QFileDialog::AcceptOpen);
  if (!current.isEmpty() && shown.exists()) dialog->selectFile(shown.absoluteFilePath());
  if (dialog->exec() != QDialog::Accepted || dialog->selectedFiles().isEmpty()) return {};
  const QString chosen = dialog->selectedFiles().front();
  rememberFolder(QFileInfo(chosen).absolutePath());
  return chosen;
}

QString askExistingDirectory(QWidget* parent, const QString& caption, const QString& fieldLabel) {
  auto dialog = makeFileDialog(parent, caption, startFolder());
  dialog->setFileMode(QFileDialog::Directory);
  dialog->setOption(QFileDialog::ShowDirsOnly);
  if (!fieldLabel.isEmpty()) dialog->setLabelText(QFileDialog::FileName, fieldLabel);
  if (dialog->exec() != QDialog::Accepted || dialog->selectedFiles().isEmpty()) return {};
  const QString chosen = dialog->selectedFiles().front();
  rememberFolder(chosen);
  return chosen;
}

}  // namespace fl::widgets
