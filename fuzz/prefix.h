// The headers the fuzz inputs include, precompiled once per mock LibTorch
// version by scripts/fuzz.sh (-include-pch): each input then costs its own
// parse only. An input that includes other headers still works.
#include <torch/torch.h>
#include <torch/script.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>
