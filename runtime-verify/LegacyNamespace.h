//===--- LegacyNamespace.h - libtorch-tidy-verify ---------------*- C++ -*-===//
//
// The verifier's statistics, reference benchmarks, harness and process
// support still declare their names in `torchverify`; the rest of the
// product is in `torchtidy`. Until they move, their names are visible from
// `torchtidy`. Delete this file (and its includes) once they have moved.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_LEGACYNAMESPACE_H
#define LIBTORCH_TIDY_VERIFY_LEGACYNAMESPACE_H

namespace torchverify {}
namespace torchtidy {
using namespace torchverify;
} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_LEGACYNAMESPACE_H
