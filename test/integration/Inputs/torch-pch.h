// Precompiled once for the whole integration suite.
#include <torch/torch.h>
