// The order tables list metric keys in: the run's own metrics first, the process's "system/"
// figures after them (where they do not push the results out of sight), each part with numbers
// read as numbers ("passkey/acc@48" before "@96" and "@384", which text order put last but one).
#pragma once

#include <QStringList>

namespace fl::gui {

QStringList inReadingOrder(const QStringList& metricKeys);

}  // namespace fl::gui
