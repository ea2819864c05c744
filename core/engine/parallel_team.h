// How many threads at::parallel_for really runs on when FourierLab's own code calls it.
//
// at::parallel_for is a header template: its OpenMP version exists only in translation units
// compiled with OpenMP, and without it every loop runs on the calling thread whatever
// at::set_num_threads says (the blocked attention and the fused GELU trained on one thread on
// any thread count until the build said -fopenmp; FOURIERLAB_OPENMP in core/CMakeLists.txt).
// The benchmarks print this beside their figures, and a test holds it to the thread count.
#pragma once

namespace fl {

// The number of distinct threads one at::parallel_for over many items used just now, on the
// calling thread's intra-op thread count (at::get_num_threads()).
int parallelForTeamSize();

}  // namespace fl
