// RunViews: the window's RunView of each run it shows or trains, by id. A view is loaded from
// the store on first use and then only appended by its session's events; views of runs no
// longer shown or trained are let go past a small number, so browsing History does not keep
// every opened run in memory.
//
//   RunView* view = views.get(id);        // loads it once; null when the store has no such run
//   views.reload(id);                     // a resumed run: its past again, as the store now has it
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>

#include "app/gui/run_view.h"

namespace fl {
class ExperimentRegistry;
}
namespace fl::store {
class RunStore;
}

namespace fl::gui {

class RunViews {
 public:
  // `registry` rebuilds the snapshots a store leaves out (the toy's true densities); null shows
  // only what is stored.
  explicit RunViews(const store::RunStore& store, const ExperimentRegistry* registry = nullptr)
      : m_store(store), m_registry(registry) {}

  RunView* find(int64_t id) const;
  RunView* get(int64_t id);
  RunView* reload(int64_t id);
  RunView& add(std::unique_ptr<RunView> view);
  void forget(int64_t id);
  // Runs whose views must stay (shown or in the queue); the others may be let go.
  void keep(const std::set<int64_t>& ids);
  size_t size() const { return m_views.size(); }

  static constexpr size_t kSpareViews = 16;

 private:
  const store::RunStore& m_store;
  const ExperimentRegistry* m_registry;
  std::map<int64_t, std::unique_ptr<RunView>> m_views;
};

}  // namespace fl::gui
