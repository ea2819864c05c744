// VerdictPanel: a judgement in words, large enough not to be missed (e.g. "LEAKS" in red when a
// causality check fails). It shows the latest snapshot named by the panel's series: meta
// "verdict" (short text), "ok" (green when true, red when false, grey when absent) and
// "detail" (a sentence underneath). Beside compared runs the verdicts are a list, one line per
// run of one size ("■ #14 standard: causal", "■ #15 fourier: LEAKS"), the focused run's first
// and its detail under them. See core/engine/panel_spec.h.
#pragma once

#include <QColor>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/engine/events.h"

class QLabel;

namespace fl::widgets {

class VerdictPanel : public QWidget {
  Q_OBJECT

 public:
  VerdictPanel(const QString& title, const QString& series, QWidget* parent = nullptr);

  // Snapshots of other names are ignored; the last one given is shown.
  void setSnapshot(const Snapshot& snapshot, int64_t step);
  void clear();
  // Whether the shown run has ended: without a verdict it then says the run gave none (some
  // settings never get one), where a live run's says "yet".
  void setShownRunEnded(bool ended);
  // Whose verdict it is ("#6 leaky"), said under it: in a comparison the large verdict is the
  // focused run's alone, and would be read as the comparison's.
  // With `color`, its square leads the run's line in a comparison.
  void setRunLabel(const QString& label, const QColor& color = {}) {
    m_runLabel = label;
    m_runColor = color;
  }
  // A compared run's verdict (snapshots of other names are ignored): its latest is listed under
  // the focused run's as "■ #4 causal: causal", the square in `runColor`. clear() drops them.
  void setOtherRunSnapshot(int64_t runId, const QString& label, const QColor& runColor,
                           const Snapshot& snapshot);

  QString verdict() const;
  QString detail() const;
  std::optional<bool> ok() const { return m_ok; }
  QColor verdictColor() const;
  // The compared runs' lines as read ("#4 causal: causal"), in the order they came.
  QStringList otherVerdicts() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void display(const QString& verdict, const QString& detail, std::optional<bool> ok);
  void showNoVerdict();
  void showVerdict();
  int shownWidth() const;  // the width lines are cut to; 0 (not cut) while unshown  // the focused
                           // run's: large alone, a line like the others' beside them
  void showOthers();

  struct OtherVerdict {
    int64_t runId = 0;
    QString label, verdict, detail;
    QColor runColor;
    std::optional<bool> ok;
  };

  QString m_series;
  QLabel* m_verdict;
  QLabel* m_detail;
  QLabel* m_others;
  std::vector<OtherVerdict> m_otherVerdicts;
  std::optional<bool> m_ok;
  bool m_hasVerdict = false;
  bool m_shownRunEnded = false;
  QString m_runLabel;
  QColor m_runColor;
  QString m_verdictText;
};

}  // namespace fl::widgets
