//===--- ClangTidyHooks.cpp - libtorch-tidy -------------------------------===//
//
// clang-tidy's --fix, seen from inside: clangTidyMain hands every diagnostic
// of the run to clang::tidy::handleErrors, which prints them and applies
// their fixes, then to clang::tidy::exportReplacements for --export-fixes.
// The driver is linked with --wrap for both (driver/CMakeLists.txt), so the
// calls land here first: the fixes that would break the build are found
// (support/FixCheck) and dropped before handleErrors applies the rest, and
// exported with a note that marks them unsafe. This file belongs to the
// libtorch-tidy executable alone: the __real_ symbols exist only where the
// linker wraps them.
//
//===----------------------------------------------------------------------===//

#include "support/FixCheck.h"
#include "support/SafeFix.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

using clang::tidy::ClangTidyContext;
using clang::tidy::ClangTidyError;
using clang::tidy::FixBehaviour;

// The mangled names of clang::tidy::handleErrors and exportReplacements
// (driver/CMakeLists.txt wraps the same two). The asm labels below give the
// functions here the names --wrap asks for: __real_X is clang-tidy's, and
// __wrap_X takes its callers' calls.
#define HANDLE_ERRORS                                                          \
  "_ZN5clang4tidy12handleErrorsEN4llvm8ArrayRefINS0_14ClangTidyErrorEEERNS0_"  \
  "16ClangTidyContextENS0_12FixBehaviourERjNS1_18IntrusiveRefCntPtrINS1_3vfs"  \
  "10FileSystemEEE"
#define EXPORT_REPLACEMENTS                                                    \
  "_ZN5clang4tidy18exportReplacementsEN4llvm9StringRefERKSt6vectorINS0_"       \
  "14ClangTidyErrorESaIS4_EERNS1_11raw_ostreamE"

// clang-tidy's own definitions (external: the linker resolves them).
void realHandleErrors(llvm::ArrayRef<ClangTidyError> Errors,
                      ClangTidyContext &Context, FixBehaviour Fix,
                      unsigned &WarningsAsErrorsCount,
                      llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> BaseFS)
    __asm__("__real_" HANDLE_ERRORS);
void realExportReplacements(llvm::StringRef MainFilePath,
                            const std::vector<ClangTidyError> &Errors,
                            llvm::raw_ostream &OS)
    __asm__("__real_" EXPORT_REPLACEMENTS);

namespace {

/// The run's diagnostics with their unsafe fixes marked (the fixes kept),
/// for the export that follows handleErrors.
std::vector<ClangTidyError> &markedErrors() {
  static std::vector<ClangTidyError> Marked;
  return Marked;
}

} // namespace

void checkedHandleErrors(llvm::ArrayRef<ClangTidyError> Errors,
                         ClangTidyContext &Context, FixBehaviour Fix,
                         unsigned &WarningsAsErrorsCount,
                         llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> BaseFS)
    __asm__("__wrap_" HANDLE_ERRORS);
namespace {

/// Test-only: the fixes $LIBTORCH_TIDY_INJECT_BROKEN_FIX breaks, in place.
void injectFaults(std::vector<ClangTidyError> &Errors) {
  std::vector<clang::tooling::Diagnostic> Plain(Errors.begin(), Errors.end());
  if (torchtidy::injectBrokenFixes(Plain))
    for (size_t I = 0; I < Plain.size(); ++I)
      Errors[I].Message.Fix = std::move(Plain[I].Message.Fix);
}

/// Marks in \p Marked the fixes that would not compile; the indices of
/// those fixes.
std::vector<size_t> markUnsafeFixes(std::vector<ClangTidyError> &Marked,
                                    ClangTidyContext &Context, bool FixNotes,
                                    const torchtidy::FixCheckOptions &O) {
  std::vector<const clang::tooling::Diagnostic *> Diags;
  for (const ClangTidyError &E : Marked)
    Diags.push_back(&E);
  auto StyleOf = [&](llvm::StringRef File) {
    return Context.getOptionsForFile(File).FormatStyle.value_or("none");
  };
  llvm::Expected<std::vector<torchtidy::UnsafeFix>> Unsafe =
      torchtidy::findUnsafeFixes(Diags, FixNotes, O, StyleOf);
  if (!Unsafe) {
    llvm::errs() << "libtorch-tidy: note: the fixes were not checked: "
                 << llvm::toString(Unsafe.takeError()) << "\n";
    return {};
  }
  std::vector<size_t> Indices;
  for (const torchtidy::UnsafeFix &U : *Unsafe) {
    torchtidy::markUnsafe(Marked[U.Index], U.Error);
    Indices.push_back(U.Index);
  }
  return Indices;
}

} // namespace

void checkedHandleErrors(llvm::ArrayRef<ClangTidyError> Errors,
                         ClangTidyContext &Context, FixBehaviour Fix,
                         unsigned &WarningsAsErrorsCount,
                         llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> BaseFS) {
  if (Fix == clang::tidy::FB_NoFix)
    return realHandleErrors(Errors, Context, Fix, WarningsAsErrorsCount,
                            std::move(BaseFS));
  std::vector<ClangTidyError> &Marked = markedErrors();
  Marked.assign(Errors.begin(), Errors.end());
  injectFaults(Marked);
  std::vector<size_t> Unsafe;
  // Files that changed since the analysis began are not written
  // (support/SafeFix), and their fixes are no longer about the text on
  // disk: nothing to check, nor to parse again.
  bool Changed = llvm::any_of(Marked, [](const ClangTidyError &E) {
    return llvm::any_of(E.Message.Fix.keys(),
                        torchtidy::changedDuringFixRun);
  });
  const std::optional<torchtidy::FixCheckOptions> &O = torchtidy::fixCheck();
  if (O && !Changed)
    Unsafe = markUnsafeFixes(Marked, Context, Fix == clang::tidy::FB_FixNotes,
                             *O);
  // Applied: the marked diagnostics, the unsafe ones without their fixes.
  std::vector<ClangTidyError> Applied = Marked;
  for (size_t I : Unsafe) {
    Applied[I].Message.Fix.clear();
    for (clang::tooling::DiagnosticMessage &N : Applied[I].Notes)
      N.Fix.clear();
  }
  realHandleErrors(Applied, Context, Fix, WarningsAsErrorsCount,
                   std::move(BaseFS));
}

void checkedExportReplacements(llvm::StringRef MainFilePath,
                               const std::vector<ClangTidyError> &Errors,
                               llvm::raw_ostream &OS)
    __asm__("__wrap_" EXPORT_REPLACEMENTS);
void checkedExportReplacements(llvm::StringRef MainFilePath,
                               const std::vector<ClangTidyError> &Errors,
                               llvm::raw_ostream &OS) {
  const std::vector<ClangTidyError> &Marked = markedErrors();
  realExportReplacements(MainFilePath,
                         Marked.size() == Errors.size() ? Marked : Errors, OS);
}
