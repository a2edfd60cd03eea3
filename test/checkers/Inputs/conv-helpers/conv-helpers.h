#pragma once
#include <torch/torch.h>

// Declared here, defined by the file under test: other files may call it.
torch::nn::Conv2d conv3x3Shared(int64_t In, int64_t Out);
