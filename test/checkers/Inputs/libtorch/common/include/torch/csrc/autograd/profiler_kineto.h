#pragma once
#include <memory>
#include <set>
#include <string>

namespace torch {
namespace profiler {
namespace impl {
enum class ActivityType { CPU = 0, CUDA };
enum class ProfilerState { Disabled = 0, CPU, CUDA, NVTX, ITT, KINETO };
struct ProfilerConfig {
  explicit ProfilerConfig(ProfilerState state, bool report_input_shapes = false,
                          bool profile_memory = false, bool with_stack = false);
};
} // namespace impl
} // namespace profiler

namespace autograd {
namespace profiler {
struct ProfilerResult {
  void save(const std::string &path);
};
void prepareProfiler(
    const torch::profiler::impl::ProfilerConfig &config,
    const std::set<torch::profiler::impl::ActivityType> &activities);
void enableProfiler(
    const torch::profiler::impl::ProfilerConfig &config,
    const std::set<torch::profiler::impl::ActivityType> &activities);
std::unique_ptr<ProfilerResult> disableProfiler();
} // namespace profiler
} // namespace autograd
} // namespace torch
