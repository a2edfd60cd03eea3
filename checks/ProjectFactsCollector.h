//===--- ProjectFactsCollector.h - libtorch-tidy ----------------*- C++ -*-===//
//
// The first pass of a whole-project run: a light walk of one translation
// unit that records what the project index needs (utils/ProjectIndex.h):
// the project's functions, the calls between them and the loops that repeat
// those calls, which code selects CUDA, which functions return host data.
// Not a check users see: the driver registers it in its index child only.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_PROJECTFACTSCOLLECTOR_H
#define LIBTORCH_TIDY_CHECKS_PROJECTFACTSCOLLECTOR_H

#include "clang-tidy/ClangTidyCheck.h"
#include <string>

namespace clang::tidy::torch {

/// The name the index child enables it under.
inline constexpr const char *ProjectFactsCollectorName =
    "torch-internal-project-facts";

/// Turns collection on (the driver's children); off, the module does not
/// even register the collector. \p Alone: no check runs next to it (the
/// index child), so its walk is the only one.
void enableProjectFacts(bool Alone);
bool projectFactsEnabled();
/// The facts of the translation unit analyzed last, as JSON.
std::string collectedFacts();

class ProjectFactsCollector : public ClangTidyCheck {
public:
  ProjectFactsCollector(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  /// Goes on after a missing header, as the torch checks do (TorchCheck):
  /// the facts of the rest of the file still count.
  void registerPPCallbacks(const SourceManager &, Preprocessor *PP,
                           Preprocessor *) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_PROJECTFACTSCOLLECTOR_H
