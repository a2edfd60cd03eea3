#pragma once
#include <iosfwd>
#include <string>

namespace torch {
namespace autograd {
namespace profiler {
struct RecordProfile {
  RecordProfile(std::ostream &out);
  RecordProfile(const std::string &filename);
  ~RecordProfile();
};
} // namespace profiler
} // namespace autograd
} // namespace torch
