#include "widgets/verdict_panel.h"

#include "widgets/verdict_colors.h"

#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>

namespace fl::widgets {

namespace {

QString metaText(const Snapshot& s, const char* key) {
  if (!s.meta.is_object() || !s.meta.contains(key)) return {};
  const auto& v = s.meta[key];
  return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
}

// "ok": green when true, red when false, not judged when absent.
std::optional<bool> okOf(const Snapshot& s) {
  if (!s.meta.is_object() || !s.meta.contains("ok") || !s.meta["ok"].is_boolean()) return {};
  return s.meta["ok"].get<bool>();
}

}  // namespace

VerdictPanel::VerdictPanel(const QString& title, const QString& series, QWidget* parent)
    : QWidget(parent),
      m_series(series),
      m_verdict(new QLabel(this)),
      m_detail(new QLabel(this)),
      m_others(new QLabel(this)) {
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
  m_others->setObjectName("otherVerdicts");
  m_others->setAlignment(Qt::AlignCenter);
  m_others->setWordWrap(true);
  m_others->setTextFormat(Qt::RichText);
  m_others->hide();
  layout->addWidget(m_others);
  layout->addStretch(1);
  setMinimumSize(260, 180);  // a dashboard cell, like the plots
  clear();
}

void VerdictPanel::setSnapshot(const Snapshot& snapshot, int64_t step) {
  if (QString::fromStdString(snapshot.name) != m_series) return;
  const std::optional<bool> ok = okOf(snapshot);
  const QString verdict = metaText(snapshot, "verdict");
  QString detail = metaText(snapshot, "detail");
  const QString where = m_runLabel.isEmpty() ? QString("step %1").arg(step)
                                             : QString("%1, step %2").arg(m_runLabel).arg(step);
  detail += detail.isEmpty() ? where : "\n(" + where + ")";
  m_hasVerdict = true;
  display(verdict.isEmpty() ? "?" : verdict, detail, ok);
}

void VerdictPanel::setOtherRunSnapshot(int64_t runId, const QString& label, const QColor& runColor,
                                       const Snapshot& snapshot) {
  if (QString::fromStdString(snapshot.name) != m_series) return;
  auto it = std::find_if(m_otherVerdicts.begin(), m_otherVerdicts.end(),
                         [&](const OtherVerdict& o) { return o.runId == runId; });
  if (it == m_otherVerdicts.end()) it = m_otherVerdicts.emplace(m_otherVerdicts.end());
  it->runId = runId;
  it->label = label;
  it->runColor = runColor;
  const QString verdict = metaText(snapshot, "verdict");
  it->verdict = verdict.isEmpty() ? "?" : verdict;
  it->detail = metaText(snapshot, "detail");
  it->ok = okOf(snapshot);
  showOthers();
}

QStringList VerdictPanel::otherVerdicts() const {
  QStringList lines;
  for (const auto& o : m_otherVerdicts) lines << o.label + ": " + o.verdict;
  return lines;
}

void VerdictPanel::showOthers() {
  // One line per compared run: its colour's square and name, the verdict in the verdict's
  // colour; the detail on hover, where a sentence per run would push the focused one's away.
  QStringList lines;
  QStringList details;
  for (const auto& o : m_otherVerdicts) {
    lines << QString("<span style='color:%1'>&#9632;</span> %2: <b style='color:%3'>%4</b>")
                 .arg(o.runColor.name(), o.label.toHtmlEscaped(), widgets::verdictColorName(o.ok),
                      o.verdict.toHtmlEscaped());
    if (!o.detail.isEmpty())
      details
          << QString("<p><b>%1</b>: %2</p>").arg(o.label.toHtmlEscaped(), o.detail.toHtmlEscaped());
  }
  m_others->setText(lines.join("<br>"));
  m_others->setToolTip(details.join(""));
  m_others->setVisible(!lines.isEmpty());
}

void VerdictPanel::clear() {
  m_otherVerdicts.clear();
  showOthers();
  showNoVerdict();
}

void VerdictPanel::showNoVerdict() {
  m_hasVerdict = false;
  display(m_shownRunEnded ? "no verdict" : "no verdict yet",
          m_shownRunEnded ? "this run recorded none for this panel" : "", std::nullopt);
}

void VerdictPanel::setShownRunEnded(bool ended) {
  m_shownRunEnded = ended;
  if (!m_hasVerdict) showNoVerdict();
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
