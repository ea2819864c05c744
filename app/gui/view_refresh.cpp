#include "app/gui/view_refresh.h"

#include <algorithm>

#include "app/gui/run_queue.h"
#include "app/gui/run_views.h"
#include "core/store/run_store.h"

namespace fl::gui {

std::vector<int64_t> refreshViews(RunViews& views, const RunQueue& queue,
                                  const store::RunStore& store, const std::vector<int64_t>& ids) {
  std::vector<int64_t> changed;
  for (auto id : ids) {
    RunView* view = views.find(id);
    if (!view || queue.isLive(id) || queue.endedUnwritten(id)) continue;
    try {
      const auto record = store.run(id);
      if (!record) continue;  // deleted: History's delete says so and forgets the view
      if (record->status != view->status() || record->message != view->message() ||
          record->lastStep > view->progress().step) {
        if (views.reload(id)) changed.push_back(id);
        continue;
      }
      const bool pinned =
          std::count(record->tags.begin(), record->tags.end(), RunView::kPinnedTag) > 0;
      if (record->name != view->name() || pinned != view->pinned()) {
        view->setName(record->name);
        view->setPinned(pinned);
        changed.push_back(id);
      }
    } catch (const std::exception&) {
      // The store could not be read now: the view stays as it was.
    }
  }
  return changed;
}

}  // namespace fl::gui
