// VerdictPanel: a judgement in words, large enough not to be missed (e.g. "LEAKS" in red when a
// causality check fails). It shows the latest snapshot named by the panel's series: meta
// "verdict" (short text), "ok" (green when true, red when false, grey when absent) and
// "detail" (a sentence underneath). See core/engine/panel_spec.h.
#pragma once

#include <QColor>
#include <QWidget>

#include <optional>

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
  // Whose verdict it is ("#6 leaky"), said under it: in a comparison the panel shows the
  // focused run's alone, and read as the comparison's.
  void setRunLabel(const QString& label) { m_runLabel = label; }

  QString verdict() const;
  QString detail() const;
  std::optional<bool> ok() const { return m_ok; }
  QColor verdictColor() const;

 private:
  void display(const QString& verdict, const QString& detail, std::optional<bool> ok);

  QString m_series;
  QLabel* m_verdict;
  QLabel* m_detail;
  std::optional<bool> m_ok;
  bool m_hasVerdict = false;
  bool m_shownRunEnded = false;
  QString m_runLabel;
};

}  // namespace fl::widgets
