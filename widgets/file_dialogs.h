// File dialogs that never read the files they list.
//
// Qt's own dialog names each listed file's type from its MIME type, which it sniffs from the
// file's first bytes: it opens the file and closes it again. Closing any descriptor of a file
// drops every POSIX lock this process holds on that file, SQLite's included. A dialog showing
// the run store's folder thus released the window's locks on the store and its WAL index, and
// the next CLI that wrote to the store took itself for the last connection and deleted the WAL
// under the window's open one: the window's later writes were lost and the store corrupt
// (sqlite.org/howtocorrupt.html, section 2.2). These dialogs name and draw files by their names
// alone, and are Qt's widget dialog (a platform's native one might sniff as well).
#pragma once

#include <QFileDialog>
#include <QFileIconProvider>
#include <QString>

#include <memory>

namespace fl::widgets {

// Icons and type names from a file's name and kind (file or folder), never its content; the
// icons are the style's, as Qt's provider draws a file or a folder.
class NameOnlyIconProvider : public QFileIconProvider {
 public:
  using QFileIconProvider::icon;
  QIcon icon(const QFileInfo& info) const override;
  QString type(const QFileInfo& info) const override;
};

// A dialog that lists files as above (its icon provider is its own).
std::unique_ptr<QFileDialog> makeFileDialog(QWidget* parent, const QString& caption,
                                            const QString& directory = QString(),
                                            const QString& filter = QString());

// As QFileDialog::getSaveFileName and getExistingDirectory, with such a dialog; empty when the
// reader cancels.
QString askSaveFileName(QWidget* parent, const QString& caption, const QString& suggested,
                        const QString& filter, QFileDialog::Options options = {});
// `fieldLabel` names the folder field where Qt's "Directory:" would not say what it is for.
QString askExistingDirectory(QWidget* parent, const QString& caption,
                             const QString& fieldLabel = QString());
// An existing file to read (a corpus), starting where `current` is.
QString askOpenFileName(QWidget* parent, const QString& caption, const QString& current);

}  // namespace fl::widgets
