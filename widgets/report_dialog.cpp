#include "widgets/report_dialog.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace fl::widgets {

namespace {

constexpr const char* kReportName = "fourierlabReport";

}  // namespace

QDialog* showReport(QWidget* parent, const QString& title, const QString& html) {
  auto* dialog =
      parent ? parent->findChild<QDialog*>(kReportName, Qt::FindDirectChildrenOnly) : nullptr;
  if (!dialog) {
    dialog = new QDialog(parent);
    dialog->setObjectName(kReportName);
    auto* layout = new QVBoxLayout(dialog);
    auto* text = new QTextBrowser(dialog);
    text->setOpenLinks(false);
    layout->addWidget(text, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    // Wide enough for a claim's numbers on one or two lines.
    dialog->resize(820, 480);
  }
  dialog->setWindowTitle(title);
  dialog->findChild<QTextBrowser*>()->setHtml(html);
  dialog->show();
  dialog->raise();
  return dialog;
}

}  // namespace fl::widgets
