// The logit-lens spectra (logit_lens_spectra.h) as a run reports them: one layer x frequency
// snapshot per module ("lens/attn", "lens/mlp"), the two modules' layer sums as two curves
// ("lens/modules"), each with the paper's periods 2, 2.5, 5 and 10 marked where they fall on the
// frequency axis (k = M / period), and each module's high-frequency share as a metric
// ("lens/high_share_attn", "lens/high_share_mlp").
#pragma once

#include "core/engine/experiment.h"
#include "experiments/addition/logit_lens_spectra.h"

namespace fl::addition {

void reportLensSpectra(const LensSpectra& spectra, EvalReport& out);

}  // namespace fl::addition
