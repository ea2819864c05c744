#include "core/engine/checkpoint_load.h"

#include <new>
#include <stdexcept>

#include <c10/util/Exception.h>

#include "core/engine/resume_refused.h"

namespace fl {

void loadForResume(const std::function<void()>& load) {
  try {
    load();
  } catch (const ResumeRefused&) {
    throw;  // the file is sound: the run stays resumable (runner.cpp)
  } catch (const c10::OutOfMemoryError&) {
    throw;  // the device, not the file: a resume elsewhere loads it
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const c10::Error& e) {
    throw std::runtime_error(kCheckpointNotLoaded + std::string(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    throw std::runtime_error(kCheckpointNotLoaded + std::string(e.what()));
  }
}

bool failedLoadingCheckpoint(const std::string& message) {
  return message.rfind(kCheckpointNotLoaded, 0) == 0;
}

}  // namespace fl
