//===--- NoLLVMPoisoning.h - libtorch-tidy fuzzing ---------------*- C++ -*-===//
//
// Force-included into every source of torch-tidy-fuzzer (fuzz/CMakeLists.txt).
//
// Under ASan, LLVM's headers make BumpPtrAllocator poison a new slab and
// every deallocation, and unpoison each allocation, all in inline code. Our
// instrumented code runs that inline code; Debian's libclang-cpp is not
// instrumented and runs its own copy, which never unpoisons. An object that
// Clang allocates in a slab our code created (identifiers, AST nodes) then
// reads as "use-after-poison" from our code although it is live. So the
// annotations go, in our code too; heap errors are still found by ASan's
// malloc, which both sides share.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_FUZZ_NOLLVMPOISONING_H
#define LIBTORCH_TIDY_FUZZ_NOLLVMPOISONING_H

#if defined(__has_include)
#if __has_include(<sanitizer/asan_interface.h>)
#include <sanitizer/asan_interface.h>
#endif
#endif

#define __asan_poison_memory_region(p, size) ((void)(p), (void)(size))
#define __asan_unpoison_memory_region(p, size) ((void)(p), (void)(size))

#endif // LIBTORCH_TIDY_FUZZ_NOLLVMPOISONING_H
