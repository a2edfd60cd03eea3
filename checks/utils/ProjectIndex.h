//===--- ProjectIndex.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// What only the whole project knows, for the checks of one translation unit:
// which functions run per training step (called, directly or through other
// functions, from a loop in any file), which may see CUDA tensors, which
// return host data, and where member tensors are made. Each file's facts are
// collected by a light pass over its AST (ProjectFactsCollector); the driver
// merges them into one index (mergeFacts) stored in its cache directory, and
// the checks find it through the global option TorchProjectIndex.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_PROJECTINDEX_H
#define LIBTORCH_TIDY_CHECKS_UTILS_PROJECTINDEX_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clang {
class Decl;
} // namespace clang

namespace clang::tidy::torch::utils {

/// A place in the project's sources.
struct SourcePlace {
  std::string File;
  unsigned Line = 0;
};

/// A file the facts of a translation unit were read from, as it was then.
struct FileStamp {
  std::string Path;
  uint64_t Size = 0;
  int64_t ModifiedNs = 0;
};

/// A function defined in the project (not in LibTorch nor a system header).
struct FunctionFact {
  std::string Usr, Name;
  SourcePlace Where;
  /// A module's forward() or a functor's operator(): per step by convention.
  bool PerStepByConvention = false;
  bool IsMain = false;
  /// Its body names a CUDA device (kCUDA, "cuda", is_available(), .cuda()).
  bool SelectsCuda = false;
  /// It holds a training loop: a loop that steps an optimizer, runs
  /// backward or forward, or iterates a data loader. What calls it runs per
  /// epoch, not per step.
  bool HasTrainingLoop = false;
  /// It returns a tensor made from host data (from_blob, a vector, a
  /// factory without a device).
  bool ReturnsHostData = false;
  /// Its address is taken: calls through the pointer are not seen.
  bool AddressTaken = false;
  /// The methods it overrides: a call of one of them may run this one.
  std::vector<std::string> Overrides;
  /// It returns a Device, DeviceType or TensorOptions: when it selects
  /// CUDA, so do its callers (`auto device = pickDevice();`).
  bool ReturnsDevice = false;
};

/// A call of a project function (or a construction of a project type's
/// object, as a call of its constructor) in a project function.
struct CallFact {
  std::string Caller, Callee;
  SourcePlace Where;
  /// The loop of the caller that repeats the call, when one does.
  std::optional<SourcePlace> Loop;
  /// That loop holds a training loop itself (an epoch loop).
  bool LoopHasTrainingLoop = false;
  /// A guard that turns autograd off (torch::NoGradGuard, ...) is active
  /// at the call, in a block around it.
  bool NoGrad = false;
  /// Bit I: argument I (of the first 32) is a tensor provably on the CPU
  /// (`decode(ids.cpu())`).
  uint32_t HostArgs = 0;
};

/// A member tensor made (assigned or initialized) in a project function.
struct MemberFact {
  std::string Usr, Name;
  SourcePlace Where;
  bool MadeOnHost = false;
};

/// A module class of the project whose forward() returns the output of one
/// of its convolution members, as one of its constructors builds that
/// member: with the bias on, or set from one of the constructor's
/// parameters. Where the constructor's and forward()'s bodies are in another
/// file, this is what tells torch-conv-bias-before-batchnorm that a
/// BatchNorm after the module follows a biased convolution.
struct ConvModuleFact {
  /// The constructor's USR (the key), its class's name, the member and the
  /// convolution's type ("Conv2d").
  std::string Ctor, Class, Member, Conv;
  /// The constructor's parameter that sets the bias, or -1: always on.
  int Param = -1;
  /// Where the bias is set.
  SourcePlace Where;
};

/// What a function of the project costs per call, for
/// torch-dataloader-workers in a file that only sees its declaration (a data
/// set's get(), a transform, a helper they call): its first expensive
/// operation, or else its tensor operations. A file's facts hold each
/// function's own body; the index adds what its callees do (three calls
/// deep), through the call graph.
struct SampleCostFact {
  /// The function's USR (the key) and how messages name the function the
  /// operation is in ("'Data::get'").
  std::string Method, In;
  /// What it does ("OpenCV calls"); empty when it only runs TensorOps
  /// tensor operations.
  std::string What;
  /// Where the operation (or the first tensor operation) is.
  SourcePlace Where;
  unsigned TensorOps = 0;
};

/// The layers the methods of a module class of the project build: for
/// torch-cudnn-benchmark and torch-tf32-disabled in a file that trains the
/// module but only sees its declaration.
struct ModuleLayersFact {
  /// The class's USR (the key) and name.
  std::string Class, Name;
  bool Convolution = false;
  bool Matmul = false;
};

/// What one translation unit shows.
struct FileFacts {
  std::string File;
  /// The main file and the project headers it read.
  std::vector<FileStamp> Inputs;
  /// Code at file scope of the main file names a CUDA device.
  bool SelectsCuda = false;
  /// The file defines a program's main(), not a test framework's runner.
  bool HasProgram = false;
  std::vector<FunctionFact> Functions;
  std::vector<CallFact> Calls;
  std::vector<MemberFact> Members;
  std::vector<ConvModuleFact> ConvModules;
  std::vector<SampleCostFact> SampleCosts;
  std::vector<ModuleLayersFact> ModuleLayers;
  /// The global settings of LibTorch's CUDA libraries the file makes
  /// (at::Context's setters): "setBenchmarkCuDNN", or "name=off" when the
  /// argument is provably false.
  std::vector<std::string> LibrarySettings;
};

std::string serializeFacts(const FileFacts &F);
/// \p Json's facts with the stamps of their inputs as they are now: for
/// facts replayed with a stored result, whose inputs are known unchanged in
/// content. Malformed facts are returned as they are.
std::string restampFacts(llvm::StringRef Json);
llvm::Expected<FileFacts> parseFacts(llvm::StringRef Json);

/// Why a function runs per step: the loop that repeats it (in a caller,
/// possibly through more calls) and the caller that calls it.
struct StepReason {
  std::string LoopFunction;
  SourcePlace Loop;
  std::string Caller;
  SourcePlace Call;
};

/// Whether code may see CUDA tensors: reached from code that selects CUDA,
/// only from programs that never do, or not known (no caller seen).
enum class CudaReach { Yes, No, Unknown };

/// The merged facts of a project, as the checks query them.
class ProjectIndex {
public:
  /// Why the function \p Usr runs per step, or null.
  const StepReason *perStep(llvm::StringRef Usr) const;
  /// The function is called in the project and never in repeating code.
  bool runsOnce(llvm::StringRef Usr) const;
  CudaReach cudaReach(llvm::StringRef Usr) const;
  bool returnsHostData(llvm::StringRef Usr) const;
  /// The function is called in the project, and every call is under a
  /// guard that turns autograd off.
  bool calledOnlyWithoutGrad(llvm::StringRef Usr) const;
  /// The function is called in the project, and every call passes a tensor
  /// on the CPU as its parameter \p Param (of the first 32).
  bool paramOnHost(llvm::StringRef Usr, unsigned Param) const;
  /// Where member \p Usr is made, when the index knows it.
  const MemberFact *member(llvm::StringRef Usr) const;
  /// How constructor \p CtorUsr builds the convolution its module's
  /// forward() returns, when the index knows it.
  const ConvModuleFact *convModule(llvm::StringRef CtorUsr) const;
  /// What a call of function \p Usr costs, with its callees, when it does
  /// any work.
  const SampleCostFact *sampleCost(llvm::StringRef Usr) const;
  /// The layers the methods of module class \p ClassUsr build.
  const ModuleLayersFact *moduleLayers(llvm::StringRef ClassUsr) const;
  /// Some file of the project makes the library setting \p Setting (as
  /// FileFacts::LibrarySettings spells it).
  bool makesSetting(llvm::StringRef Setting) const;
  /// Any file of the project selects CUDA.
  bool selectsCuda() const;
  /// The project's own programs never select CUDA: it has a program (a
  /// main() that is not a test framework's runner) and no file selects
  /// CUDA. A library whose only main() runs its unit tests is used by
  /// programs elsewhere, which pick the device.
  bool neverSelectsCuda() const;
  /// The first input of the index that changed since it was built, or "".
  std::string firstStaleInput(llvm::StringRef Except = "") const;
  const std::vector<FileStamp> &inputs() const { return Inputs; }

  std::string serialize() const;
  static llvm::Expected<ProjectIndex> parse(llvm::StringRef Json);
  /// What a scan of the sources found when no facts say it yet.
  void setSelectsCuda(bool Cuda) { SelectsCuda = Cuda; }

  /// The answer of query \p Kind for \p Key as text, without recording it.
  std::string answer(llvm::StringRef Kind, llvm::StringRef Key) const;

private:
  friend ProjectIndex mergeFacts(const std::vector<FileFacts> &Files);

  struct Entry {
    std::optional<StepReason> Step;
    bool Once = false;
    CudaReach Cuda = CudaReach::Unknown;
    bool HostResult = false;
    bool OnlyNoGrad = false;
    uint32_t HostParams = 0;
  };
  llvm::StringMap<Entry> Functions;
  llvm::StringMap<MemberFact> Members;
  llvm::StringMap<ConvModuleFact> ConvModules;
  llvm::StringMap<SampleCostFact> SampleCosts;
  llvm::StringMap<ModuleLayersFact> ModuleLayers;
  std::set<std::string> LibrarySettings;
  std::vector<FileStamp> Inputs;
  bool SelectsCuda = false;
  bool HasProgram = true;
};

/// The index of the facts of every file of a project: the call graph's
/// per-step closure (through overrides), its CUDA reach, the host-data
/// functions and member facts.
ProjectIndex mergeFacts(const std::vector<FileFacts> &Files);

/// The stamp of \p Path now, or none when it cannot be read.
std::optional<FileStamp> stampOf(llvm::StringRef Path);

/// The index at \p Path, loaded once per process (again when the file
/// changes); null with \p Why set when it cannot be read or is stale for a
/// file other than \p MainFile.
std::shared_ptr<const ProjectIndex>
loadProjectIndex(llvm::StringRef Path, llvm::StringRef MainFile,
                 std::string &Why);

/// The answers of the index a run's findings depend on: every query a
/// check made, with its answer, recorded while enabled (the driver's
/// analysis child), so that a stored result is replayed only while the
/// index still gives the same answers. "loaded" records whether a check had
/// an index at all.
void enableIndexAnswers();
void recordIndexAnswer(llvm::StringRef Kind, llvm::StringRef Key,
                       llvm::StringRef Answer);
/// The answers recorded since the last call, one "kind\tkey\tanswer" line
/// each, sorted; recording starts over.
std::string takeIndexAnswers();
/// The first recorded answer that \p Index (null: no index) no longer
/// gives, as "kind key"; "" when all still hold.
std::string changedIndexAnswer(const ProjectIndex *Index,
                               llvm::StringRef Answers);

/// The USR that names \p D in the index, or "".
std::string usrOf(const Decl *D);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_PROJECTINDEX_H
