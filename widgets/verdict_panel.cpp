#include "widgets/verdict_panel.h"

#include "widgets/plot_frame.h"
#include "widgets/verdict_colors.h"

#include <QFontMetrics>
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

// A run's verdict alone is large; beside compared runs each one's is a line of this size, the
// focused run's first: a leak among them read small under a large "causal".
constexpr int kAlonePointSize = 28;
constexpr int kComparedPointSize = 14;

// "■ #4 causal: causal": the run's colour, its name, the verdict in the verdict's colour, on one
// line of `width` pixels (0: whole) where it fits: the name is cut as legends cut theirs (a
// study run's "#6 tiny, edited: corpus /work/.../tinyshakespeare.txt, variant multi" took three
// lines).
QString verdictLine(const QColor& runColor, const QString& label, const QString& verdict,
                    std::optional<bool> ok, int width) {
  const QString swatch =
      runColor.isValid() ? QString("<span style='color:%1'>&#9632;</span> ").arg(runColor.name())
                         : QString();
  const QFont font("sans", kComparedPointSize);
  QFont bold = font;
  bold.setBold(true);
  const int room = width - QFontMetrics(font).horizontalAdvance("■ : ") -
                   QFontMetrics(bold).horizontalAdvance(verdict) - 16;
  const QString name =
      width <= 0
          ? label
          : legendName(label, font, std::max(room, QFontMetrics(font).horizontalAdvance("#00 …")));
  return QString("%1%2: <b style='color:%3'>%4</b>")
      .arg(swatch, name.toHtmlEscaped(), verdictColorName(ok), verdict.toHtmlEscaped());
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
  m_verdict->setAlignment(Qt::AlignCenter);
  m_verdict->setWordWrap(true);
  layout->addWidget(m_verdict);
  m_others->setObjectName("otherVerdicts");
  m_others->setFont(QFont("sans", kComparedPointSize));
  m_others->setAlignment(Qt::AlignCenter);
  m_others->setWordWrap(true);
  m_others->setTextFormat(Qt::RichText);
  m_others->hide();
  layout->addWidget(m_others);
  m_detail->setAlignment(Qt::AlignCenter);
  m_detail->setWordWrap(true);
  layout->addWidget(m_detail);
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
    lines << verdictLine(o.runColor, o.label, o.verdict, o.ok, shownWidth());
    if (!o.detail.isEmpty())
      details
          << QString("<p><b>%1</b>: %2</p>").arg(o.label.toHtmlEscaped(), o.detail.toHtmlEscaped());
  }
  m_others->setText(lines.join("<br>"));
  m_others->setToolTip(details.join(""));
  m_others->setVisible(!lines.isEmpty());
  showVerdict();
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

int VerdictPanel::shownWidth() const { return isVisible() ? width() : 0; }

void VerdictPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (!m_otherVerdicts.empty()) showOthers();  // the names cut to the new width
}

QString VerdictPanel::verdict() const { return m_verdictText; }
QString VerdictPanel::detail() const { return m_detail->text(); }

QColor VerdictPanel::verdictColor() const { return widgets::verdictColor(m_ok); }

void VerdictPanel::display(const QString& verdict, const QString& detail, std::optional<bool> ok) {
  m_ok = ok;
  m_verdictText = verdict;
  m_detail->setText(detail);
  showVerdict();
}

void VerdictPanel::showVerdict() {
  const bool comparing = !m_otherVerdicts.empty();
  m_verdict->setFont(QFont("sans", comparing ? kComparedPointSize : kAlonePointSize,
                           comparing ? -1 : QFont::Bold));
  if (comparing && !m_runLabel.isEmpty()) {
    m_verdict->setTextFormat(Qt::RichText);
    m_verdict->setText(verdictLine(m_runColor, m_runLabel, m_verdictText, m_ok, shownWidth()));
  } else {
    m_verdict->setTextFormat(Qt::PlainText);
    m_verdict->setText(m_verdictText);
  }
  // Alone, the word in the verdict's colour; in a line, the run's name in the text's, as the
  // other runs' lines have it.
  QPalette palette = m_verdict->palette();
  palette.setColor(QPalette::WindowText,
                   comparing ? m_others->palette().color(QPalette::WindowText) : verdictColor());
  m_verdict->setPalette(palette);
}

}  // namespace fl::widgets
