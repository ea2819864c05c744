// Precompiled header for every target that compiles LibTorch code (see core/CMakeLists.txt).
#pragma once
#include <torch/torch.h>
