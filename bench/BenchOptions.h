// The benchmarks' command line: `--name N` pairs of positive integers.

#ifndef LIBTORCH_TIDY_BENCH_BENCHOPTIONS_H
#define LIBTORCH_TIDY_BENCH_BENCHOPTIONS_H

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace bench {

/// Sets the integer each `--name N` names; false, with a one-line error on
/// stderr, for an unknown option or a value that is not a positive number.
inline bool
parseOptions(int argc, char **argv,
             std::initializer_list<std::pair<const char *, int *>> Known) {
  for (int I = 1; I < argc; I += 2) {
    int Value = I + 1 < argc ? std::atoi(argv[I + 1]) : 0;
    int *Target = nullptr;
    for (const auto &[Name, Field] : Known)
      if (!std::strcmp(argv[I], Name))
        Target = Field;
    if (!Target) {
      std::fprintf(stderr, "error: unknown option %s\n", argv[I]);
      return false;
    }
    if (Value <= 0) {
      std::fprintf(stderr, "error: %s needs a positive number\n", argv[I]);
      return false;
    }
    *Target = Value;
  }
  return true;
}

} // namespace bench

#endif // LIBTORCH_TIDY_BENCH_BENCHOPTIONS_H
