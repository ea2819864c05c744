// The cores this process may use: its CPU affinity, or a batch job's CPU grant when that is
// smaller (a Slurm job step may see every core of its node but own only
// SLURM_CPUS_PER_TASK of them). The thread budget shares these among runs.
#pragma once

namespace fl {

int availableCores();

}  // namespace fl
