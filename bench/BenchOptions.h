// The benchmarks' command line: `--name N` pairs of positive integers.

#ifndef LIBTORCH_TIDY_BENCH_BENCHOPTIONS_H
#define LIBTORCH_TIDY_BENCH_BENCHOPTIONS_H

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace torchtidy {

/// Sets the integer each `--name N` names; false, with a one-line error on
/// stderr, for an unknown option or a value that is not a positive number.
inline bool
parseBenchOptions(int Argc, char **Argv,
             std::initializer_list<std::pair<const char *, int *>> Known) {
  for (int I = 1; I < Argc; I += 2) {
    int Value = I + 1 < Argc ? std::atoi(Argv[I + 1]) : 0;
    int *Target = nullptr;
    for (const auto &[Name, Field] : Known)
      if (!std::strcmp(Argv[I], Name))
        Target = Field;
    if (!Target) {
      std::fprintf(stderr, "error: unknown option %s\n", Argv[I]);
      return false;
    }
    if (Value <= 0) {
      std::fprintf(stderr, "error: %s needs a positive number\n", Argv[I]);
      return false;
    }
    *Target = Value;
  }
  return true;
}

} // namespace torchtidy

#endif // LIBTORCH_TIDY_BENCH_BENCHOPTIONS_H
