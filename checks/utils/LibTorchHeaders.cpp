//===--- LibTorchHeaders.cpp - libtorch-tidy ------------------------------===//

#include "LibTorchHeaders.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

namespace clang::tidy::torch::utils {

bool isInLibTorchHeader(SourceLocation Loc, const SourceManager &SM) {
  if (Loc.isInvalid())
    return false;
  SourceLocation FileLoc = SM.getExpansionLoc(Loc);
  if (SM.isInSystemHeader(FileLoc))
    return true;
  if (SM.isWrittenInMainFile(FileLoc))
    return false;
  // Asked for nearly every node of the headers: remember the answer per file
  // name (not per FileID, which means another file in the next translation
  // unit), per thread since clangd builds ASTs on several threads.
  thread_local llvm::StringMap<bool> Cache;
  llvm::StringRef Name = SM.getFilename(FileLoc);
  auto It = Cache.find(Name);
  if (It != Cache.end())
    return It->second;
  if (Cache.size() > 100000)
    Cache.clear();
  return Cache[Name] = isLibTorchPath(Name);
}

bool isLibTorchPath(llvm::StringRef Name) {
  // Walk the directory components: LibTorch installs its headers under
  // include/{ATen,c10,caffe2,torch/csrc}.
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  for (auto It = llvm::sys::path::begin(Name), End = llvm::sys::path::end(Name);
       It != End; ++It)
    Parts.push_back(*It);
  for (size_t I = 0; I + 1 < Parts.size(); ++I) {
    llvm::StringRef Part = Parts[I];
    if (Part == "ATen" || Part == "c10" || Part == "caffe2")
      return true;
    if (Part == "torch" && I + 2 < Parts.size() && Parts[I + 1] == "csrc")
      return true;
  }
  return false;
}

} // namespace clang::tidy::torch::utils
