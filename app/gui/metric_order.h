// The order tables list metric keys in: the held-out ones ("test/", "val/") first, as the papers'
// tables lead with them (History's columns had led with FoPE's passkey accuracy, its perplexity
// past the window's edge), then the run's other evaluations, its training figures, and the
// process's "system/" figures last (where they do not push the results out of sight); each part
// with numbers read as numbers ("passkey/acc@48" before "@96" and "@384", which text order put
// last but one).
#pragma once

#include <QStringList>

namespace fl::gui {

QStringList inReadingOrder(const QStringList& metricKeys);

}  // namespace fl::gui
