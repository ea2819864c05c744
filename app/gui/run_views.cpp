#include "app/gui/run_views.h"

#include "core/engine/registry.h"
#include "core/store/run_store.h"

namespace fl::gui {

RunView* RunViews::find(int64_t id) const {
  auto it = m_views.find(id);
  return it == m_views.end() ? nullptr : it->second.get();
}

RunView* RunViews::get(int64_t id) {
  if (auto* view = find(id)) return view;
  return reload(id);
}

RunView* RunViews::reload(int64_t id) {
  auto view = RunView::load(m_store, id, m_registry);
  if (!view) {
    m_views.erase(id);
    return nullptr;
  }
  return &add(std::move(view));
}

RunView& RunViews::add(std::unique_ptr<RunView> view) {
  auto& slot = m_views[view->id()];
  slot = std::move(view);
  return *slot;
}

void RunViews::forget(int64_t id) { m_views.erase(id); }

void RunViews::keep(const std::set<int64_t>& ids) {
  size_t spare = 0;
  for (const auto& [id, view] : m_views) spare += ids.count(id) == 0;
  // The oldest ids go first: the ones opened longest ago, most likely.
  for (auto it = m_views.begin(); it != m_views.end() && spare > kSpareViews;) {
    if (ids.count(it->first)) {
      ++it;
      continue;
    }
    it = m_views.erase(it);
    --spare;
  }
}

}  // namespace fl::gui
