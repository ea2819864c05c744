// ClosingWait: what a closing window shows until the runs it stopped are over. Each cancelled
// run ends its step, saves a checkpoint and writes its last steps to the store: within a second
// or so, longer for a large model's step, and up to two minutes where another process holds the
// store's lock (StoreWriter::closingPatience). The window had gone at once while its process
// waited unseen, with nothing to say why and no way to give the wait up.
//
//   auto* wait = new ClosingWait(window);   // shows itself unless the runs end first
//   wait->update(runsLeft, storeTrouble);   // on each tick
//   connect(wait, &QProgressDialog::canceled, window, &quitWithoutWaiting);  // its one button
#pragma once

#include <QProgressDialog>

namespace fl::gui {

class ClosingWait : public QProgressDialog {
  Q_OBJECT

 public:
  explicit ClosingWait(QWidget* window);
  // The runs not over yet, and what the store says of their writes ("" while it takes them).
  void update(int runsLeft, const QString& storeTrouble);

  // Not shown before then: most closes are over sooner, and a flash of a dialog reads as an
  // error.
  static constexpr int kShowAfterMs = 800;

  // Its title bar's close and Escape give up the wait only where the button offers it: a
  // QProgressDialog cancels on either, and an Escape without the button hid it for good.
  void reject() override;

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  bool m_offered = false;  // whether "Quit without waiting" is there
};

}  // namespace fl::gui
