// WriteTroubleWatch: says once when the store stops taking the writes of runs still training,
// and once when it takes them again.
//
// A write that fails keeps its batch in memory and is tried again at every flush
// (store_writer.h), so nothing is lost while the run trains; a run that ends while its writes
// still fail loses that batch. Said only at the run's end, a full disk or a lock held by another
// process cost a long run everything since the failure; said at once, it can be cleared in time.
//
//   WriteTroubleWatch watch;
//   if (auto said = watch.update({failingRunIds, firstError}, liveRunIds)) print("store: " +
//   *said);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fl::store {

// The runs whose last write the store refused, and why (the store's words).
struct WriteTrouble {
  std::vector<int64_t> runs;  // ascending; empty: every write was taken
  std::string error;
};

// "not taking the writes of run 7 (...: database or disk is full); they wait in memory ...":
// the trouble as it stands.
std::string describeWriteTrouble(const WriteTrouble& trouble);

class WriteTroubleWatch {
 public:
  // What to tell the user now: when writes begin to fail, when the reason changes, and when
  // they are taken again. Nothing while the same trouble goes on, however many runs join it.
  // `lost`: the runs that ended with their last writes lost; they are not said to be taken
  // again (their ends say what the store lacks), and nothing is said when all of them were.
  std::optional<std::string> update(const WriteTrouble& now, const std::vector<int64_t>& lost);

 private:
  WriteTrouble m_last;
};

}  // namespace fl::store
