#pragma once
#include <c10/core/GradMode.h>
#include <c10/core/InferenceMode.h>

namespace torch {
namespace autograd {
using GradMode = at::GradMode;
using AutoGradMode = at::AutoGradMode;
using InferenceMode = c10::InferenceMode;
} // namespace autograd
} // namespace torch
