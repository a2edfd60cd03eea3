//===--- ProjectIndex.cpp - libtorch-tidy ---------------------------------===//

#include "ProjectIndex.h"
#include "ProjectIndexFinder.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <atomic>
#include <deque>
#include <map>
#include <set>
#include <mutex>

namespace json = llvm::json;

namespace clang::tidy::torch::utils {

namespace {

llvm::Error malformed(const llvm::Twine &What) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "malformed project index: " + What);
}

json::Value toJson(const SourcePlace &P) {
  return json::Array{P.File, static_cast<int64_t>(P.Line)};
}

SourcePlace placeFrom(const json::Value *V) {
  SourcePlace P;
  const json::Array *A = V ? V->getAsArray() : nullptr;
  if (!A || A->size() != 2)
    return P;
  P.File = (*A)[0].getAsString().value_or("").str();
  P.Line = static_cast<unsigned>((*A)[1].getAsInteger().value_or(0));
  return P;
}

json::Value toJson(const FileStamp &S) {
  return json::Array{S.Path, static_cast<int64_t>(S.Size), S.ModifiedNs};
}

std::optional<FileStamp> stampFrom(const json::Value &V) {
  const json::Array *A = V.getAsArray();
  if (!A || A->size() != 3 || !(*A)[0].getAsString())
    return std::nullopt;
  FileStamp S;
  S.Path = (*A)[0].getAsString()->str();
  S.Size = static_cast<uint64_t>((*A)[1].getAsInteger().value_or(0));
  S.ModifiedNs = (*A)[2].getAsInteger().value_or(0);
  return S;
}

json::Array stampsToJson(const std::vector<FileStamp> &Stamps) {
  json::Array Out;
  for (const FileStamp &S : Stamps)
    Out.push_back(toJson(S));
  return Out;
}

llvm::Expected<std::vector<FileStamp>> stampsFrom(const json::Array *A) {
  std::vector<FileStamp> Out;
  if (!A)
    return Out;
  for (const json::Value &V : *A) {
    std::optional<FileStamp> S = stampFrom(V);
    if (!S)
      return malformed("a file stamp");
    Out.push_back(std::move(*S));
  }
  return Out;
}

bool flag(const json::Object &O, llvm::StringRef Key) {
  return O.getBoolean(Key).value_or(false);
}

std::string text(const json::Object &O, llvm::StringRef Key) {
  return O.getString(Key).value_or("").str();
}

json::Value toJson(const FunctionFact &F) {
  json::Array Overrides;
  for (const std::string &O : F.Overrides)
    Overrides.push_back(O);
  return json::Object{{"usr", F.Usr},
                      {"name", F.Name},
                      {"at", toJson(F.Where)},
                      {"convention", F.PerStepByConvention},
                      {"main", F.IsMain},
                      {"cuda", F.SelectsCuda},
                      {"training", F.HasTrainingLoop},
                      {"host", F.ReturnsHostData},
                      {"address", F.AddressTaken},
                      {"overrides", std::move(Overrides)},
                      {"device", F.ReturnsDevice}};
}

FunctionFact functionFrom(const json::Object &O) {
  FunctionFact F;
  F.Usr = text(O, "usr");
  F.Name = text(O, "name");
  F.Where = placeFrom(O.get("at"));
  F.PerStepByConvention = flag(O, "convention");
  F.IsMain = flag(O, "main");
  F.SelectsCuda = flag(O, "cuda");
  F.HasTrainingLoop = flag(O, "training");
  F.ReturnsHostData = flag(O, "host");
  F.AddressTaken = flag(O, "address");
  F.ReturnsDevice = flag(O, "device");
  if (const json::Array *A = O.getArray("overrides"))
    for (const json::Value &V : *A)
      if (std::optional<llvm::StringRef> S = V.getAsString())
        F.Overrides.push_back(S->str());
  return F;
}

json::Value toJson(const CallFact &C) {
  json::Object O{{"from", C.Caller}, {"to", C.Callee}, {"at", toJson(C.Where)}};
  if (C.NoGrad)
    O["nograd"] = true;
  if (C.HostArgs)
    O["hostArgs"] = static_cast<int64_t>(C.HostArgs);
  if (C.Loop) {
    O["loop"] = toJson(*C.Loop);
    O["epoch"] = C.LoopHasTrainingLoop;
  }
  return O;
}

CallFact callFrom(const json::Object &O) {
  CallFact C;
  C.Caller = text(O, "from");
  C.Callee = text(O, "to");
  C.Where = placeFrom(O.get("at"));
  C.NoGrad = flag(O, "nograd");
  C.HostArgs = static_cast<uint32_t>(O.getInteger("hostArgs").value_or(0));
  if (O.get("loop")) {
    C.Loop = placeFrom(O.get("loop"));
    C.LoopHasTrainingLoop = flag(O, "epoch");
  }
  return C;
}

json::Value toJson(const MemberFact &M) {
  return json::Object{{"usr", M.Usr},
                      {"name", M.Name},
                      {"at", toJson(M.Where)},
                      {"host", M.MadeOnHost}};
}

json::Value toJson(const ConvModuleFact &C) {
  return json::Object{{"ctor", C.Ctor},   {"class", C.Class},
                      {"member", C.Member}, {"conv", C.Conv},
                      {"param", C.Param}, {"at", toJson(C.Where)}};
}

ConvModuleFact convModuleFrom(const json::Object &O) {
  ConvModuleFact C;
  C.Ctor = text(O, "ctor");
  C.Class = text(O, "class");
  C.Member = text(O, "member");
  C.Conv = text(O, "conv");
  C.Param = static_cast<int>(O.getInteger("param").value_or(-1));
  C.Where = placeFrom(O.get("at"));
  return C;
}

json::Value toJson(const SampleCostFact &C) {
  return json::Object{{"method", C.Method},
                      {"in", C.In},
                      {"what", C.What},
                      {"at", toJson(C.Where)},
                      {"ops", static_cast<int64_t>(C.TensorOps)}};
}

SampleCostFact sampleCostFrom(const json::Object &O) {
  SampleCostFact C;
  C.Method = text(O, "method");
  C.In = text(O, "in");
  C.What = text(O, "what");
  C.Where = placeFrom(O.get("at"));
  C.TensorOps = static_cast<unsigned>(O.getInteger("ops").value_or(0));
  return C;
}

json::Value toJson(const ModuleLayersFact &L) {
  return json::Object{{"class", L.Class},
                      {"name", L.Name},
                      {"conv", L.Convolution},
                      {"matmul", L.Matmul}};
}

ModuleLayersFact moduleLayersFrom(const json::Object &O) {
  ModuleLayersFact L;
  L.Class = text(O, "class");
  L.Name = text(O, "name");
  L.Convolution = flag(O, "conv");
  L.Matmul = flag(O, "matmul");
  return L;
}

template <typename Fact> json::Array toJsonArray(const std::vector<Fact> &V) {
  json::Array Out;
  for (const Fact &F : V)
    Out.push_back(toJson(F));
  return Out;
}

json::Array settingsToJson(const std::vector<std::string> &Settings) {
  json::Array Out;
  for (const std::string &S : Settings)
    Out.push_back(S);
  return Out;
}

std::vector<std::string> settingsFrom(const json::Object &O) {
  std::vector<std::string> Out;
  if (const json::Array *A = O.getArray("settings"))
    for (const json::Value &V : *A)
      if (std::optional<llvm::StringRef> S = V.getAsString())
        Out.push_back(S->str());
  return Out;
}

MemberFact memberFrom(const json::Object &O) {
  MemberFact M;
  M.Usr = text(O, "usr");
  M.Name = text(O, "name");
  M.Where = placeFrom(O.get("at"));
  M.MadeOnHost = flag(O, "host");
  return M;
}

/// Calls \p Each on every object of the array \p Key of \p O.
template <typename Fn>
llvm::Error eachObject(const json::Object &O, llvm::StringRef Key, Fn Each) {
  const json::Array *A = O.getArray(Key);
  if (!A)
    return llvm::Error::success();
  for (const json::Value &V : *A) {
    const json::Object *Item = V.getAsObject();
    if (!Item)
      return malformed("an entry of '" + Key + "'");
    Each(*Item);
  }
  return llvm::Error::success();
}

/// \p O as compact JSON text.
std::string jsonText(json::Object O) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << json::Value(std::move(O));
  return Out;
}

/// The parts every facts or index file starts with: format version 1, the
/// CUDA and program flags and the stamps of its inputs.
struct Header {
  const json::Object *Top = nullptr;
  bool SelectsCuda = false;
  bool HasProgram = true;
  std::vector<FileStamp> Inputs;
};

llvm::Expected<Header> headerOf(const json::Value &V, llvm::StringRef What) {
  Header H;
  H.Top = V.getAsObject();
  if (!H.Top || H.Top->getInteger("version") != 1)
    return malformed("not " + What);
  H.SelectsCuda = flag(*H.Top, "cuda");
  // Written before programs were told from test runners: a program.
  H.HasProgram = H.Top->getBoolean("program").value_or(true);
  llvm::Expected<std::vector<FileStamp>> Inputs =
      stampsFrom(H.Top->getArray("inputs"));
  if (!Inputs)
    return Inputs.takeError();
  H.Inputs = std::move(*Inputs);
  return H;
}

} // namespace

std::string serializeFacts(const FileFacts &F) {
  json::Array Functions, Calls, Members;
  for (const FunctionFact &Fn : F.Functions)
    Functions.push_back(toJson(Fn));
  for (const CallFact &C : F.Calls)
    Calls.push_back(toJson(C));
  for (const MemberFact &M : F.Members)
    Members.push_back(toJson(M));
  json::Array ConvModules;
  for (const ConvModuleFact &C : F.ConvModules)
    ConvModules.push_back(toJson(C));
  json::Object O{{"version", 1},
                 {"file", F.File},
                 {"inputs", stampsToJson(F.Inputs)},
                 {"cuda", F.SelectsCuda},
                 {"program", F.HasProgram},
                 {"functions", std::move(Functions)},
                 {"calls", std::move(Calls)},
                 {"members", std::move(Members)},
                 {"convModules", std::move(ConvModules)},
                 {"sampleCosts", toJsonArray(F.SampleCosts)},
                 {"moduleLayers", toJsonArray(F.ModuleLayers)},
                 {"settings", settingsToJson(F.LibrarySettings)}};
  return jsonText(std::move(O));
}

llvm::Expected<FileFacts> parseFacts(llvm::StringRef Json) {
  llvm::Expected<json::Value> V = json::parse(Json);
  if (!V)
    return V.takeError();
  llvm::Expected<Header> H = headerOf(*V, "a file's facts");
  if (!H)
    return H.takeError();
  const json::Object *O = H->Top;
  FileFacts F;
  F.File = text(*O, "file");
  F.SelectsCuda = H->SelectsCuda;
  F.HasProgram = H->HasProgram;
  F.Inputs = std::move(H->Inputs);
  if (llvm::Error E = eachObject(*O, "functions", [&](const json::Object &I) {
        F.Functions.push_back(functionFrom(I));
      }))
    return std::move(E);
  if (llvm::Error E = eachObject(*O, "calls", [&](const json::Object &I) {
        F.Calls.push_back(callFrom(I));
      }))
    return std::move(E);
  if (llvm::Error E = eachObject(*O, "members", [&](const json::Object &I) {
        F.Members.push_back(memberFrom(I));
      }))
    return std::move(E);
  if (llvm::Error E =
          eachObject(*O, "convModules", [&](const json::Object &I) {
            F.ConvModules.push_back(convModuleFrom(I));
          }))
    return std::move(E);
  if (llvm::Error E =
          eachObject(*O, "sampleCosts", [&](const json::Object &I) {
            F.SampleCosts.push_back(sampleCostFrom(I));
          }))
    return std::move(E);
  if (llvm::Error E =
          eachObject(*O, "moduleLayers", [&](const json::Object &I) {
            F.ModuleLayers.push_back(moduleLayersFrom(I));
          }))
    return std::move(E);
  F.LibrarySettings = settingsFrom(*O);
  return F;
}

std::string restampFacts(llvm::StringRef Json) {
  llvm::Expected<FileFacts> Facts = parseFacts(Json);
  if (!Facts) {
    llvm::consumeError(Facts.takeError());
    return Json.str();
  }
  for (FileStamp &S : Facts->Inputs)
    if (std::optional<FileStamp> Now = stampOf(S.Path))
      S = *Now;
  return serializeFacts(*Facts);
}

//===----------------------------------------------------------------------===//
// Merging
//===----------------------------------------------------------------------===//

namespace {

/// The project's call graph, functions by USR, with the closures the index
/// needs.
class CallGraph {
public:
  explicit CallGraph(const std::vector<FileFacts> &Files) {
    for (const FileFacts &F : Files) {
      for (const FunctionFact &Fn : F.Functions)
        addFunction(Fn, F.SelectsCuda && Fn.Where.File == F.File);
      for (const CallFact &C : F.Calls)
        addCall(C);
    }
    for (const auto &[Usr, Fn] : Functions)
      for (const std::string &Base : Fn.Overrides)
        Overriders[Base].push_back(Usr.str());
    seedDeviceChoosers();
  }

  /// The functions a call of \p Callee may run: it and its overriders.
  std::vector<std::string> targets(llvm::StringRef Callee) const {
    std::vector<std::string> Out = {Callee.str()};
    llvm::StringSet<> Seen = {Callee};
    for (size_t I = 0; I < Out.size(); ++I) {
      auto It = Overriders.find(Out[I]);
      if (It == Overriders.end())
        continue;
      for (const std::string &O : It->second)
        if (Seen.insert(O).second)
          Out.push_back(O);
    }
    return Out;
  }

  /// Functions holding a training loop, directly or through calls.
  void closeTrainingLoops() {
    bool Changed = true;
    while (Changed) {
      Changed = false;
      for (const CallFact *C : CallList)
        if (!training(C->Caller) && anyTargetTrains(C->Callee))
          Changed = Training.insert(C->Caller).second || Changed;
    }
  }

  bool training(llvm::StringRef Usr) const { return Training.contains(Usr); }

  bool anyTargetTrains(llvm::StringRef Callee) const {
    return llvm::any_of(targets(Callee),
                        [&](const std::string &T) { return training(T); });
  }

  /// An epoch loop: one that holds a training loop, or calls a function
  /// that does.
  bool isEpochLoop(const CallFact &C) const {
    if (C.LoopHasTrainingLoop)
      return true;
    auto It = LoopCalls.find(loopKey(C));
    return It != LoopCalls.end() &&
           llvm::any_of(It->second, [&](const CallFact *Other) {
             return anyTargetTrains(Other->Callee);
           });
  }

  llvm::StringMap<FunctionFact> Functions;
  llvm::StringSet<> CudaSeeds;
  std::vector<const CallFact *> CallList;
  llvm::StringMap<std::vector<const CallFact *>> Out, In;

private:
  static std::string loopKey(const CallFact &C) {
    return C.Caller + "\n" + C.Loop->File + ":" + std::to_string(C.Loop->Line);
  }

  /// The callers of a function that returns a device it chose as CUDA
  /// select CUDA themselves (through devices returned up several calls).
  void seedDeviceChoosers() {
    bool Changed = true;
    while (Changed) {
      Changed = false;
      for (const CallFact *C : CallList) {
        auto Callee = Functions.find(C->Callee);
        if (Callee != Functions.end() && Callee->second.ReturnsDevice &&
            CudaSeeds.contains(C->Callee))
          Changed = CudaSeeds.insert(C->Caller).second || Changed;
      }
    }
  }

  void addFunction(const FunctionFact &Fn, bool InCudaFile) {
    auto [It, New] = Functions.try_emplace(Fn.Usr, Fn);
    FunctionFact &Kept = It->second;
    if (!New) {
      Kept.SelectsCuda |= Fn.SelectsCuda;
      Kept.HasTrainingLoop |= Fn.HasTrainingLoop;
      Kept.ReturnsHostData |= Fn.ReturnsHostData;
      Kept.AddressTaken |= Fn.AddressTaken;
      Kept.ReturnsDevice |= Fn.ReturnsDevice;
    }
    if (Fn.SelectsCuda || InCudaFile)
      CudaSeeds.insert(Fn.Usr);
    if (Fn.HasTrainingLoop)
      Training.insert(Fn.Usr);
  }

  void addCall(const CallFact &C) {
    std::string Key = C.Caller + "\n" + C.Callee + "\n" + C.Where.File + ":" +
                      std::to_string(C.Where.Line);
    if (!SeenCalls.insert(Key).second)
      return;
    CallList.push_back(&C);
    Out[C.Caller].push_back(&C);
    In[C.Callee].push_back(&C);
    if (C.Loop)
      LoopCalls[loopKey(C)].push_back(&C);
  }

  llvm::StringMap<std::vector<std::string>> Overriders;
  llvm::StringSet<> Training, SeenCalls;
  llvm::StringMap<std::vector<const CallFact *>> LoopCalls;
};

std::string nameOf(const CallGraph &G, llvm::StringRef Usr) {
  auto It = G.Functions.find(Usr);
  return It == G.Functions.end() ? std::string() : It->second.Name;
}

/// The per-step closure: from the calls in loops that are not epoch loops
/// (and the functions per step by convention that nothing calls), through
/// the calls of per-step functions, never into a function that holds a
/// training loop (it runs per epoch).
llvm::StringMap<StepReason> perStepClosure(const CallGraph &G) {
  llvm::StringMap<StepReason> Step;
  std::deque<std::string> Work;
  auto Reach = [&](llvm::StringRef Callee, const StepReason &R) {
    for (const std::string &T : G.targets(Callee))
      if (G.Functions.count(T) && !G.training(T) &&
          Step.try_emplace(T, R).second)
        Work.push_back(T);
  };
  for (const CallFact *C : G.CallList)
    if (C->Loop && !G.isEpochLoop(*C))
      Reach(C->Callee, {nameOf(G, C->Caller), *C->Loop, nameOf(G, C->Caller),
                        C->Where});
  for (const auto &[Usr, Fn] : G.Functions)
    if (Fn.PerStepByConvention && !G.In.count(Usr) && !G.training(Usr) &&
        Step.try_emplace(Usr, StepReason()).second)
      Work.push_back(Usr.str());
  while (!Work.empty()) {
    std::string F = Work.front();
    Work.pop_front();
    auto It = G.Out.find(F);
    if (It == G.Out.end())
      continue;
    StepReason Base = Step[F];
    for (const CallFact *C : It->second)
      Reach(C->Callee,
            {Base.LoopFunction, Base.Loop, nameOf(G, F), C->Where});
  }
  return Step;
}

/// Adds to \p Reached what \p Work's functions call, directly or through
/// other functions.
void reachFrom(const CallGraph &G, std::deque<std::string> Work,
               llvm::StringSet<> &Reached) {
  while (!Work.empty()) {
    std::string F = Work.front();
    Work.pop_front();
    auto It = G.Out.find(F);
    if (It == G.Out.end())
      continue;
    for (const CallFact *C : It->second)
      for (const std::string &T : G.targets(C->Callee))
        if (Reached.insert(T).second)
          Work.push_back(T);
  }
}

/// The functions that may see CUDA tensors: those that select CUDA and
/// everything they call, and everything a program reaches when it reaches
/// one that selects CUDA (main picks the device through a helper, then
/// hands it to the training code).
llvm::StringSet<> cudaClosure(const CallGraph &G) {
  llvm::StringSet<> Cuda;
  std::deque<std::string> Work;
  for (const auto &S : G.CudaSeeds)
    if (Cuda.insert(S.getKey()).second)
      Work.push_back(S.getKey().str());
  reachFrom(G, std::move(Work), Cuda);
  for (const auto &[Usr, Fn] : G.Functions) {
    if (!Fn.IsMain || Cuda.contains(Usr))
      continue;
    llvm::StringSet<> Program = {Usr};
    reachFrom(G, {Usr.str()}, Program);
    if (llvm::any_of(Program, [&](const auto &P) {
          return G.CudaSeeds.contains(P.getKey());
        }))
      for (const auto &P : Program)
        Cuda.insert(P.getKey());
  }
  return Cuda;
}

/// Whether every way into a function is seen: it is main, or all its
/// callers (of it or of a method it overrides) are, and its address is not
/// taken. A cycle is not known. With \p OnlyOnce, also no call on the way
/// from main is repeated by a loop: the function runs once.
class KnownRoots {
public:
  explicit KnownRoots(const CallGraph &G, bool OnlyOnce = false)
      : G(G), OnlyOnce(OnlyOnce) {}

  bool known(const std::string &Usr) {
    auto Done = Memo.find(Usr);
    if (Done != Memo.end())
      return Done->second;
    Memo[Usr] = false; // in progress: a cycle is not known
    bool Result = compute(Usr);
    Memo[Usr] = Result;
    return Result;
  }

private:
  bool compute(const std::string &Usr) {
    auto Fn = G.Functions.find(Usr);
    if (Fn == G.Functions.end() || Fn->second.AddressTaken ||
        Fn->second.PerStepByConvention)
      return false;
    if (Fn->second.IsMain)
      return true;
    std::vector<const CallFact *> Callers = callersOf(Fn->second);
    if (Callers.empty())
      return false;
    return llvm::all_of(Callers, [&](const CallFact *C) {
      return !(OnlyOnce && C->Loop) && known(C->Caller);
    });
  }

  /// Its callers; none when it overrides a method, whose callers (in
  /// LibTorch or through the base) are not all seen.
  std::vector<const CallFact *> callersOf(const FunctionFact &Fn) const {
    auto It = G.In.find(Fn.Usr);
    if (!Fn.Overrides.empty() || It == G.In.end())
      return {};
    return It->second;
  }

  const CallGraph &G;
  bool OnlyOnce;
  std::map<std::string, bool> Memo;
};

/// The cost of each function with what it calls: its own first expensive
/// operation, else the first of its callees' (depth first, in call order),
/// and the tensor operations of all of them, three calls deep.
class CostClosure {
public:
  CostClosure(const std::vector<FileFacts> &Files, const CallGraph &G)
      : G(G) {
    for (const FileFacts &F : Files)
      for (const SampleCostFact &C : F.SampleCosts)
        Own.try_emplace(C.Method, C);
  }

  llvm::StringMap<SampleCostFact> all() {
    llvm::StringMap<SampleCostFact> Out;
    for (const auto &Entry : G.Functions) {
      llvm::StringSet<> Seen;
      std::optional<SampleCostFact> C = of(Entry.getKey(), 0, Seen);
      if (C && (!C->What.empty() || C->TensorOps)) {
        C->Method = Entry.getKey().str();
        Out[Entry.getKey()] = std::move(*C);
      }
    }
    return Out;
  }

private:
  static constexpr unsigned MaxDepth = 3;

  std::optional<SampleCostFact> of(llvm::StringRef Usr, unsigned Depth,
                                   llvm::StringSet<> &Seen) {
    if (!Seen.insert(Usr).second)
      return std::nullopt;
    std::optional<SampleCostFact> Sum;
    if (auto It = Own.find(Usr); It != Own.end())
      Sum = It->second;
    if ((Sum && !Sum->What.empty()) || Depth + 1 >= MaxDepth)
      return Sum;
    auto Out = G.Out.find(Usr);
    if (Out == G.Out.end())
      return Sum;
    for (const CallFact *C : Out->second) {
      std::optional<SampleCostFact> Callee = of(C->Callee, Depth + 1, Seen);
      if (!Callee)
        continue;
      if (!Callee->What.empty() || !Sum) {
        unsigned Ops = Sum ? Sum->TensorOps : 0;
        Sum = Callee;
        if (!Callee->What.empty())
          return Sum;
        Sum->TensorOps += Ops;
        continue;
      }
      Sum->TensorOps += Callee->TensorOps;
    }
    return Sum;
  }

  const CallGraph &G;
  llvm::StringMap<SampleCostFact> Own;
};

llvm::StringMap<SampleCostFact>
sampleCostClosure(const std::vector<FileFacts> &Files, const CallGraph &G) {
  return CostClosure(Files, G).all();
}

} // namespace

ProjectIndex mergeFacts(const std::vector<FileFacts> &Files) {
  CallGraph G(Files);
  G.closeTrainingLoops();
  llvm::StringMap<StepReason> Step = perStepClosure(G);
  llvm::StringSet<> Cuda = cudaClosure(G);
  KnownRoots Roots(G), OnceRoots(G, /*OnlyOnce=*/true);
  ProjectIndex Index;
  Index.HasProgram = false;
  llvm::StringSet<> SeenInputs;
  for (const FileFacts &F : Files) {
    Index.SelectsCuda |= F.SelectsCuda;
    Index.HasProgram |= F.HasProgram;
    for (const FileStamp &S : F.Inputs)
      if (SeenInputs.insert(S.Path).second)
        Index.Inputs.push_back(S);
    for (const MemberFact &M : F.Members) {
      auto [It, New] = Index.Members.try_emplace(M.Usr, M);
      if (!New)
        It->second.MadeOnHost &= M.MadeOnHost;
    }
    for (const ConvModuleFact &C : F.ConvModules)
      Index.ConvModules.try_emplace(C.Ctor, C);
    // A file that only sees some of a class's methods knows part of it.
    for (const ModuleLayersFact &L : F.ModuleLayers) {
      auto [It, New] = Index.ModuleLayers.try_emplace(L.Class, L);
      It->second.Convolution |= L.Convolution;
      It->second.Matmul |= L.Matmul;
    }
    Index.LibrarySettings.insert(F.LibrarySettings.begin(),
                                 F.LibrarySettings.end());
  }
  Index.SelectsCuda |= !G.CudaSeeds.empty();
  Index.SampleCosts = sampleCostClosure(Files, G);
  for (const auto &[Usr, Fn] : G.Functions) {
    ProjectIndex::Entry E;
    if (auto It = Step.find(Usr); It != Step.end())
      E.Step = It->second;
    bool Known = Roots.known(Usr.str());
    E.Once = !E.Step && OnceRoots.known(Usr.str());
    E.Cuda = Cuda.contains(Usr) ? CudaReach::Yes
             : Known            ? CudaReach::No
                                : CudaReach::Unknown;
    E.HostResult = Fn.ReturnsHostData;
    if (auto In = G.In.find(Usr);
        In != G.In.end() && !In->second.empty() && !Fn.AddressTaken) {
      E.OnlyNoGrad =
          llvm::all_of(In->second, [](const CallFact *C) { return C->NoGrad; });
      E.HostParams = ~uint32_t(0);
      for (const CallFact *C : In->second)
        E.HostParams &= C->HostArgs;
    }
    Index.Functions[Usr] = std::move(E);
  }
  return Index;
}

//===----------------------------------------------------------------------===//
// Queries, storage
//===----------------------------------------------------------------------===//

namespace {

bool AnswersEnabled = false;
std::set<std::string> &answerLog() {
  static std::set<std::string> Log;
  return Log;
}

std::string placeText(const SourcePlace &P) {
  return P.File + ":" + std::to_string(P.Line);
}

std::string reasonText(const StepReason *R) {
  if (!R)
    return "-";
  return R->LoopFunction + "@" + placeText(R->Loop) + "," + R->Caller + "@" +
         placeText(R->Call);
}

const char *cudaText(CudaReach R) {
  return R == CudaReach::Yes ? "yes" : R == CudaReach::No ? "no" : "unknown";
}

std::string memberText(const MemberFact *M) {
  if (!M)
    return "-";
  return M->Name + "@" + placeText(M->Where) + (M->MadeOnHost ? ",host" : "");
}

std::string convModuleText(const ConvModuleFact *C) {
  if (!C)
    return "-";
  return C->Class + "." + C->Member + ":" + C->Conv + "," +
         std::to_string(C->Param) + "@" + placeText(C->Where);
}

std::string sampleCostText(const SampleCostFact *C) {
  if (!C)
    return "-";
  return C->In + ":" + C->What + "+" + std::to_string(C->TensorOps) + "@" +
         placeText(C->Where);
}

std::string moduleLayersText(const ModuleLayersFact *L) {
  if (!L)
    return "-";
  return std::string(L->Convolution ? "conv" : "") + "," +
         (L->Matmul ? "matmul" : "");
}

template <typename Fact>
const Fact *find(const llvm::StringMap<Fact> &Map, llvm::StringRef Key) {
  auto It = Map.find(Key);
  return It == Map.end() ? nullptr : &It->second;
}

} // namespace

void enableIndexAnswers() { AnswersEnabled = true; }

void recordIndexAnswer(llvm::StringRef Kind, llvm::StringRef Key,
                       llvm::StringRef Answer) {
  if (AnswersEnabled)
    answerLog().insert((Kind + "\t" + Key + "\t" + Answer).str());
}

std::string takeIndexAnswers() {
  std::string Out;
  for (const std::string &Line : answerLog())
    Out += Line + "\n";
  answerLog().clear();
  return Out;
}

std::string ProjectIndex::answer(llvm::StringRef Kind,
                                 llvm::StringRef Key) const {
  if (Kind == "step") {
    auto It = Functions.find(Key);
    return reasonText(It == Functions.end() || !It->second.Step
                          ? nullptr
                          : &*It->second.Step);
  }
  auto It = Functions.find(Key);
  const Entry *E = It == Functions.end() ? nullptr : &It->second;
  if (Kind == "once")
    return E && E->Once ? "1" : "0";
  if (Kind == "cuda")
    return cudaText(E ? E->Cuda : CudaReach::Unknown);
  if (Kind == "host")
    return E && E->HostResult ? "1" : "0";
  if (Kind == "nograd")
    return E && E->OnlyNoGrad ? "1" : "0";
  if (Kind == "host-params")
    return std::to_string(E ? E->HostParams : 0);
  if (Kind == "member") {
    auto M = Members.find(Key);
    return memberText(M == Members.end() ? nullptr : &M->second);
  }
  if (Kind == "conv-module") {
    auto C = ConvModules.find(Key);
    return convModuleText(C == ConvModules.end() ? nullptr : &C->second);
  }
  if (Kind == "sample-cost")
    return sampleCostText(find(SampleCosts, Key));
  if (Kind == "module-layers")
    return moduleLayersText(find(ModuleLayers, Key));
  if (Kind == "setting")
    return LibrarySettings.count(Key.str()) ? "1" : "0";
  if (Kind == "project-cuda")
    return SelectsCuda ? "1" : "0";
  if (Kind == "project-never-cuda")
    return HasProgram && !SelectsCuda ? "1" : "0";
  return "?";
}

const StepReason *ProjectIndex::perStep(llvm::StringRef Usr) const {
  auto It = Functions.find(Usr);
  const StepReason *R = It == Functions.end() || !It->second.Step
                            ? nullptr
                            : &*It->second.Step;
  recordIndexAnswer("step", Usr, reasonText(R));
  return R;
}

bool ProjectIndex::runsOnce(llvm::StringRef Usr) const {
  std::string A = answer("once", Usr);
  recordIndexAnswer("once", Usr, A);
  return A == "1";
}

CudaReach ProjectIndex::cudaReach(llvm::StringRef Usr) const {
  auto It = Functions.find(Usr);
  CudaReach R = It == Functions.end() ? CudaReach::Unknown : It->second.Cuda;
  recordIndexAnswer("cuda", Usr, cudaText(R));
  return R;
}

bool ProjectIndex::returnsHostData(llvm::StringRef Usr) const {
  std::string A = answer("host", Usr);
  recordIndexAnswer("host", Usr, A);
  return A == "1";
}

bool ProjectIndex::calledOnlyWithoutGrad(llvm::StringRef Usr) const {
  std::string A = answer("nograd", Usr);
  recordIndexAnswer("nograd", Usr, A);
  return A == "1";
}

bool ProjectIndex::paramOnHost(llvm::StringRef Usr, unsigned Param) const {
  std::string A = answer("host-params", Usr);
  recordIndexAnswer("host-params", Usr, A);
  uint32_t Bits = 0;
  // getAsInteger is true on error.
  return Param < 32 && !llvm::StringRef(A).getAsInteger(10, Bits) &&
         (Bits >> Param & 1);
}

const MemberFact *ProjectIndex::member(llvm::StringRef Usr) const {
  auto It = Members.find(Usr);
  const MemberFact *M = It == Members.end() ? nullptr : &It->second;
  recordIndexAnswer("member", Usr, memberText(M));
  return M;
}

const ConvModuleFact *
ProjectIndex::convModule(llvm::StringRef CtorUsr) const {
  auto It = ConvModules.find(CtorUsr);
  const ConvModuleFact *C =
      It == ConvModules.end() ? nullptr : &It->second;
  recordIndexAnswer("conv-module", CtorUsr, convModuleText(C));
  return C;
}

const SampleCostFact *
ProjectIndex::sampleCost(llvm::StringRef MethodUsr) const {
  const SampleCostFact *C = find(SampleCosts, MethodUsr);
  recordIndexAnswer("sample-cost", MethodUsr, sampleCostText(C));
  return C;
}

const ModuleLayersFact *
ProjectIndex::moduleLayers(llvm::StringRef ClassUsr) const {
  const ModuleLayersFact *L = find(ModuleLayers, ClassUsr);
  recordIndexAnswer("module-layers", ClassUsr, moduleLayersText(L));
  return L;
}

bool ProjectIndex::makesSetting(llvm::StringRef Setting) const {
  std::string A = answer("setting", Setting);
  recordIndexAnswer("setting", Setting, A);
  return A == "1";
}

bool ProjectIndex::selectsCuda() const {
  recordIndexAnswer("project-cuda", "", SelectsCuda ? "1" : "0");
  return SelectsCuda;
}

bool ProjectIndex::neverSelectsCuda() const {
  std::string A = answer("project-never-cuda", "");
  recordIndexAnswer("project-never-cuda", "", A);
  return A == "1";
}

std::string changedIndexAnswer(const ProjectIndex *Index,
                               llvm::StringRef Answers) {
  while (!Answers.empty()) {
    auto [Line, Rest] = Answers.split('\n');
    Answers = Rest;
    llvm::SmallVector<llvm::StringRef, 3> Parts;
    Line.split(Parts, '\t', 2);
    if (Parts.size() != 3)
      return Line.str();
    std::string Now;
    if (Parts[0] == "loaded")
      Now = Index ? "yes" : "no";
    else
      Now = Index ? Index->answer(Parts[0], Parts[1]) : "";
    if (Now != Parts[2])
      return (Parts[0] + " " + Parts[1]).str();
  }
  return "";
}

std::optional<FileStamp> stampOf(llvm::StringRef Path) {
  llvm::sys::fs::file_status Status;
  if (llvm::sys::fs::status(Path, Status) ||
      !llvm::sys::fs::is_regular_file(Status))
    return std::nullopt;
  FileStamp S;
  S.Path = Path.str();
  S.Size = Status.getSize();
  S.ModifiedNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                     Status.getLastModificationTime().time_since_epoch())
                     .count();
  return S;
}

std::string ProjectIndex::firstStaleInput(llvm::StringRef Except) const {
  for (const FileStamp &S : Inputs) {
    if (S.Path == Except)
      continue;
    std::optional<FileStamp> Now = stampOf(S.Path);
    if (!Now || Now->Size != S.Size || Now->ModifiedNs != S.ModifiedNs)
      return S.Path;
  }
  return "";
}

namespace {

const char *cudaName(CudaReach R) {
  return R == CudaReach::Yes ? "yes" : R == CudaReach::No ? "no" : "unknown";
}

CudaReach cudaFrom(llvm::StringRef S) {
  return S == "yes" ? CudaReach::Yes : S == "no" ? CudaReach::No
                                                 : CudaReach::Unknown;
}

} // namespace

/// The facts of \p Map as JSON, in the order of their keys.
template <typename Fact>
static json::Array inKeyOrder(const llvm::StringMap<Fact> &Map) {
  std::vector<llvm::StringRef> Keys;
  for (const auto &Entry : Map)
    Keys.push_back(Entry.getKey());
  llvm::sort(Keys);
  json::Array Out;
  for (llvm::StringRef Key : Keys)
    Out.push_back(toJson(Map.find(Key)->second));
  return Out;
}

std::string ProjectIndex::serialize() const {
  // Sorted, so that the same facts give the same bytes (and digest).
  std::vector<llvm::StringRef> Usrs;
  for (const auto &F : Functions)
    Usrs.push_back(F.getKey());
  llvm::sort(Usrs);
  json::Array Fns;
  for (llvm::StringRef Usr : Usrs) {
    const Entry &E = Functions.find(Usr)->second;
    json::Object O{{"usr", Usr},
                   {"once", E.Once},
                   {"cuda", cudaName(E.Cuda)},
                   {"host", E.HostResult}};
    if (E.OnlyNoGrad)
      O["nograd"] = true;
    if (E.HostParams)
      O["hostParams"] = static_cast<int64_t>(E.HostParams);
    if (E.Step)
      O["step"] = json::Object{{"loopFunction", E.Step->LoopFunction},
                               {"loop", toJson(E.Step->Loop)},
                               {"caller", E.Step->Caller},
                               {"call", toJson(E.Step->Call)}};
    Fns.push_back(std::move(O));
  }
  json::Array Ms = inKeyOrder(Members);
  json::Array Convs = inKeyOrder(ConvModules);
  json::Object O{
      {"version", 1},
      {"cuda", SelectsCuda},
      {"program", HasProgram},
      {"inputs", stampsToJson(Inputs)},
      {"functions", std::move(Fns)},
      {"members", std::move(Ms)},
      {"convModules", std::move(Convs)},
      {"sampleCosts", inKeyOrder(SampleCosts)},
      {"moduleLayers", inKeyOrder(ModuleLayers)},
      {"settings", settingsToJson(std::vector<std::string>(
                       LibrarySettings.begin(), LibrarySettings.end()))}};
  return jsonText(std::move(O));
}

/// The facts of the array \p Name of \p O into \p Map, by their \p Key.
template <typename Fact, typename From>
static llvm::Error readKeyed(const json::Object &O, llvm::StringRef Name,
                             From FactFrom, std::string Fact::*Key,
                             llvm::StringMap<Fact> &Map) {
  return eachObject(O, Name, [&](const json::Object &I) {
    Fact F = FactFrom(I);
    std::string K = F.*Key;
    Map[K] = std::move(F);
  });
}

llvm::Expected<ProjectIndex> ProjectIndex::parse(llvm::StringRef Json) {
  llvm::Expected<json::Value> V = json::parse(Json);
  if (!V)
    return V.takeError();
  llvm::Expected<Header> H = headerOf(*V, "an index");
  if (!H)
    return H.takeError();
  const json::Object *O = H->Top;
  ProjectIndex Index;
  Index.SelectsCuda = H->SelectsCuda;
  Index.HasProgram = H->HasProgram;
  Index.Inputs = std::move(H->Inputs);
  if (llvm::Error E = eachObject(*O, "functions", [&](const json::Object &I) {
        Entry &En = Index.Functions[text(I, "usr")];
        En.Once = flag(I, "once");
        En.Cuda = cudaFrom(text(I, "cuda"));
        En.HostResult = flag(I, "host");
        En.OnlyNoGrad = flag(I, "nograd");
        En.HostParams =
            static_cast<uint32_t>(I.getInteger("hostParams").value_or(0));
        if (const json::Object *S = I.getObject("step"))
          En.Step = StepReason{text(*S, "loopFunction"),
                               placeFrom(S->get("loop")), text(*S, "caller"),
                               placeFrom(S->get("call"))};
      }))
    return std::move(E);
  if (llvm::Error E = readKeyed(*O, "members", memberFrom,
                                &MemberFact::Usr, Index.Members))
    return std::move(E);
  if (llvm::Error E = readKeyed(*O, "convModules", convModuleFrom,
                                &ConvModuleFact::Ctor, Index.ConvModules))
    return std::move(E);
  if (llvm::Error E = readKeyed(*O, "sampleCosts", sampleCostFrom,
                                &SampleCostFact::Method, Index.SampleCosts))
    return std::move(E);
  if (llvm::Error E = readKeyed(*O, "moduleLayers", moduleLayersFrom,
                                &ModuleLayersFact::Class, Index.ModuleLayers))
    return std::move(E);
  for (std::string &S : settingsFrom(*O))
    Index.LibrarySettings.insert(std::move(S));
  return Index;
}

std::shared_ptr<const ProjectIndex>
loadProjectIndex(llvm::StringRef Path, llvm::StringRef MainFile,
                 std::string &Why) {
  struct Loaded {
    FileStamp Stamp;
    std::shared_ptr<const ProjectIndex> Index;
  };
  static std::mutex Lock;
  static llvm::StringMap<Loaded> Cache;
  std::optional<FileStamp> Now = stampOf(Path);
  if (!Now) {
    Why = "no project index at '" + Path.str() + "'";
    return nullptr;
  }
  std::shared_ptr<const ProjectIndex> Index;
  {
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = Cache.find(Path);
    if (It != Cache.end() && It->second.Stamp.Size == Now->Size &&
        It->second.Stamp.ModifiedNs == Now->ModifiedNs)
      Index = It->second.Index;
  }
  if (!Index) {
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    if (!Buffer) {
      Why = "cannot read the project index '" + Path.str() + "'";
      return nullptr;
    }
    llvm::Expected<ProjectIndex> Parsed =
        ProjectIndex::parse((*Buffer)->getBuffer());
    if (!Parsed) {
      Why = llvm::toString(Parsed.takeError());
      return nullptr;
    }
    Index = std::make_shared<const ProjectIndex>(std::move(*Parsed));
    std::lock_guard<std::mutex> Guard(Lock);
    Cache[Path] = {*Now, Index};
  }
  std::string Stale = Index->firstStaleInput(MainFile);
  if (!Stale.empty()) {
    Why = "the project index is stale ('" + Stale + "' changed)";
    return nullptr;
  }
  return Index;
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

namespace {

const Decl *writtenDecl(const Decl *D) {
  if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
    if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
      FD = Pattern;
    return FD->getCanonicalDecl();
  }
  if (const auto *Field = dyn_cast<FieldDecl>(D)) {
    // A member of a class template's instantiation: the pattern's member.
    const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
    if (const CXXRecordDecl *Pattern =
            RD ? RD->getTemplateInstantiationPattern() : nullptr)
      for (const FieldDecl *F : Pattern->fields())
        if (F->getName() == Field->getName())
          return F;
  }
  return D->getCanonicalDecl();
}

} // namespace

std::string usrOf(const Decl *D) {
  if (!D)
    return "";
  D = writtenDecl(D);
  const auto *ND = dyn_cast<NamedDecl>(D);
  if (!ND)
    return "";
  // The qualified name and, for a function, its parameter types as written
  // in every file the same way: the same function in every translation
  // unit, overloads apart.
  std::string Key = ND->getQualifiedNameAsString();
  // What other files cannot name (static functions, members of anonymous
  // namespaces and local classes, lambdas) is told apart by its place; so
  // is main, of which a project's programs each have one.
  const auto *Main = dyn_cast<FunctionDecl>(D);
  if (!ND->isExternallyVisible() || (Main && Main->isMain())) {
    const SourceManager &SM = D->getASTContext().getSourceManager();
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(D->getLocation()));
    if (P.isValid())
      Key += "@" + std::string(P.getFilename()) + ":" +
             std::to_string(P.getLine());
  }
  const auto *FD = dyn_cast<FunctionDecl>(D);
  if (!FD)
    return "v:" + Key;
  PrintingPolicy Policy(FD->getASTContext().getLangOpts());
  Policy.SuppressScope = false;
  Policy.FullyQualifiedName = true;
  Key += "(";
  for (unsigned I = 0; I < FD->getNumParams(); ++I)
    Key += (I ? "," : "") +
           FD->getParamDecl(I)->getType().getCanonicalType().getAsString(
               Policy);
  Key += ")";
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && MD->isConst())
    Key += "const";
  return "f:" + Key;
}

namespace {
std::atomic<ProjectIndexFinder> Finder{nullptr};
} // namespace

void setProjectIndexFinder(ProjectIndexFinder F) { Finder = F; }

bool hasProjectIndexFinder() { return Finder != nullptr; }

std::string findProjectIndex(llvm::StringRef MainFile) {
  ProjectIndexFinder F = Finder;
  return F && !MainFile.empty() ? F(MainFile) : std::string();
}

} // namespace clang::tidy::torch::utils
