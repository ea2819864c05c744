#include "widgets/verdict_panel.h"

#include "widgets/verdict_colors.h"

#include <QLabel>
#include <QVBoxLayout>

namespace fl::widgets {

namespace {

QString metaText(const Snapshot& s, const char* key) {
  if (!s.meta.is_object() || !s.meta.contains(key)) return {};
  const auto& v = s.meta[key];
  return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
}

}  // namespace

VerdictPanel::VerdictPanel(const QString& title, const QString& series, QWidget* parent)
    : QWidget(parent), m_series(series), m_verdict(new QLabel(this)), m_detail(new QLabel(this)) {
  auto* layout = new QVBoxLayout(this);
  auto* heading = new QLabel(title, this);
  heading->setFont(QFont("sans", 10, QFont::Bold));  // as the plots' titles
  heading->setAlignment(Qt::AlignHCenter);
  layout->addWidget(heading);
  layout->addStretch(1);
  QFont big("sans", 28, QFont::Bold);
  m_verdict->setFont(big);
  m_verdict->setAlignment(Qt::AlignCenter);
  m_verdict->setWordWrap(true);
  layout->addWidget(m_verdict);
  m_detail->setAlignment(Qt::AlignCenter);
  m_detail->setWordWrap(true);
  layout->addWidget(m_detail);
  layout->addStretch(1);
  setMinimumSize(260, 180);  // a dashboard cell, like the plots
  clear();
}

void VerdictPanel::setSnapshot(const Snapshot& snapshot, int64_t step) {
  if (QString::fromStdString(snapshot.name) != m_series) return;
  std::optional<bool> ok;
  if (snapshot.meta.is_object() && snapshot.meta.contains("ok") && snapshot.meta["ok"].is_boolean())
    ok = snapshot.meta["ok"].get<bool>();
  const QString verdict = metaText(snapshot, "verdict");
  QString detail = metaText(snapshot, "detail");
  const QString where = m_runLabel.isEmpty() ? QString("step %1").arg(step)
                                             : QString("%1, step %2").arg(m_runLabel).arg(step);
  detail += detail.isEmpty() ? where : "\n(" + where + ")";
  m_hasVerdict = true;
  display(verdict.isEmpty() ? "?" : verdict, detail, ok);
}

void VerdictPanel::clear() {
  m_hasVerdict = false;
  display(m_shownRunEnded ? "no verdict" : "no verdict yet",
          m_shownRunEnded ? "this run recorded none for this panel" : "", std::nullopt);
}

void VerdictPanel::setShownRunEnded(bool ended) {
  m_shownRunEnded = ended;
  if (!m_hasVerdict) clear();
}

QString VerdictPanel::verdict() const { return m_verdict->text(); }
QString VerdictPanel::detail() const { return m_detail->text(); }

QColor VerdictPanel::verdictColor() const { return widgets::verdictColor(m_ok); }

void VerdictPanel::display(const QString& verdict, const QString& detail, std::optional<bool> ok) {
  m_ok = ok;
  m_verdict->setText(verdict);
  m_detail->setText(detail);
  QPalette palette = m_verdict->palette();
  palette.setColor(QPalette::WindowText, verdictColor());
  m_verdict->setPalette(palette);
}

}  // namespace fl::widgets
