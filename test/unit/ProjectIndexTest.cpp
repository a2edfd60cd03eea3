//===--- ProjectIndexTest.cpp - libtorch-tidy -----------------------------===//
//
// The project index's merge (checks/utils/ProjectIndex.h) on hand-made facts
// of a few files: the per-step closure across files and its epoch-loop rule,
// overrides, the functions that run once, the CUDA reach; its storage (a
// round trip, malformed JSON) and its staleness.
//
//===----------------------------------------------------------------------===//

#include "utils/ProjectIndex.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace clang::tidy::torch::utils {
namespace {

namespace fs = llvm::sys::fs;

/// A function of \p File defined at \p Line.
FunctionFact fn(llvm::StringRef Usr, llvm::StringRef File, unsigned Line) {
  FunctionFact F;
  F.Usr = Usr.str();
  F.Name = Usr.drop_front(2).split('(').first.str();
  F.Where = {File.str(), Line};
  return F;
}

/// Each program's main is its own function (usrOf names it with its file).
std::string mainUsr(llvm::StringRef File) {
  return "f:main@" + File.str() + ":1()";
}

FunctionFact mainOf(llvm::StringRef File) {
  FunctionFact F = fn(mainUsr(File), File, 1);
  F.IsMain = true;
  return F;
}

/// A call at \p File:\p Line, not in a loop.
CallFact call(llvm::StringRef From, llvm::StringRef To, llvm::StringRef File,
              unsigned Line) {
  CallFact C;
  C.Caller = From.str();
  C.Callee = To.str();
  C.Where = {File.str(), Line};
  return C;
}

/// A call repeated by the loop at \p File:\p LoopLine.
CallFact loopCall(llvm::StringRef From, llvm::StringRef To,
                  llvm::StringRef File, unsigned Line, unsigned LoopLine,
                  bool Epoch = false) {
  CallFact C = call(From, To, File, Line);
  C.Loop = SourcePlace{File.str(), LoopLine};
  C.LoopHasTrainingLoop = Epoch;
  return C;
}

FileFacts file(llvm::StringRef Name, std::vector<FunctionFact> Functions,
               std::vector<CallFact> Calls = {}) {
  FileFacts F;
  F.File = Name.str();
  F.Functions = std::move(Functions);
  F.Calls = std::move(Calls);
  return F;
}

const char *Train = "f:train()";
const char *Update = "f:Logger::update(double)";
const char *Record = "f:Logger::record(double)";

/// train.cpp: main calls train(), whose loop calls Logger::update
/// (logger.cpp), which calls Logger::record (logger.cpp).
std::vector<FileFacts> loggerProject() {
  FunctionFact TrainFn = fn(Train, "train.cpp", 3);
  TrainFn.HasTrainingLoop = true;
  return {file("train.cpp", {mainOf("train.cpp"), TrainFn},
               {call(mainUsr("train.cpp"), Train, "train.cpp", 12),
                loopCall(Train, Update, "train.cpp", 7, 5)}),
          file("logger.cpp", {fn(Update, "logger.cpp", 4),
                              fn(Record, "logger.cpp", 10)},
               {call(Update, Record, "logger.cpp", 5)})};
}

TEST(ProjectIndexTest, CallInLoopIsPerStepAndSoIsWhatItCalls) {
  ProjectIndex Index = mergeFacts(loggerProject());
  const StepReason *Step = Index.perStep(Update);
  ASSERT_NE(Step, nullptr);
  EXPECT_EQ(Step->LoopFunction, "train");
  EXPECT_EQ(Step->Loop.File, "train.cpp");
  EXPECT_EQ(Step->Loop.Line, 5u);
  EXPECT_EQ(Step->Caller, "train");
  EXPECT_EQ(Step->Call.File, "train.cpp");
  EXPECT_EQ(Step->Call.Line, 7u);
  // One file further: the loop is still train's, the caller update.
  const StepReason *Next = Index.perStep(Record);
  ASSERT_NE(Next, nullptr);
  EXPECT_EQ(Next->LoopFunction, "train");
  EXPECT_EQ(Next->Loop.Line, 5u);
  EXPECT_EQ(Next->Caller, "Logger::update");
  EXPECT_EQ(Next->Call.File, "logger.cpp");
  EXPECT_EQ(Next->Call.Line, 5u);
  // Neither main nor the function holding the loop run per step.
  EXPECT_EQ(Index.perStep(mainUsr("train.cpp")), nullptr);
  EXPECT_EQ(Index.perStep(Train), nullptr);
  EXPECT_EQ(Index.perStep("f:unknown()"), nullptr);
}

TEST(ProjectIndexTest, EpochLoopHoldingATrainingLoopIsNotPerStep) {
  // for (epoch) { for (batch : loader) {...}  save(); }
  std::vector<FileFacts> Files = {
      file("train.cpp", {mainOf("train.cpp"), fn("f:save()", "io.cpp", 2)},
           {loopCall(mainUsr("train.cpp"), "f:save()", "train.cpp", 9, 4,
                     /*Epoch=*/true)})};
  ProjectIndex Index = mergeFacts(Files);
  EXPECT_EQ(Index.perStep("f:save()"), nullptr);
}

TEST(ProjectIndexTest, EpochLoopCallingATrainingFunctionIsNotPerStep) {
  // for (epoch) { trainEpoch(); evaluate(); }, trainEpoch() in another
  // file holds the training loop; evaluate() calls report().
  FunctionFact TrainEpoch = fn("f:trainEpoch()", "epoch.cpp", 3);
  TrainEpoch.HasTrainingLoop = true;
  std::vector<FileFacts> Files = {
      file("main.cpp", {mainOf("main.cpp")},
           {loopCall(mainUsr("main.cpp"), "f:trainEpoch()", "main.cpp", 5, 4),
            loopCall(mainUsr("main.cpp"), "f:evaluate()", "main.cpp", 6, 4)}),
      file("epoch.cpp", {TrainEpoch, fn("f:evaluate()", "epoch.cpp", 20),
                         fn("f:report()", "epoch.cpp", 30)},
           {call("f:evaluate()", "f:report()", "epoch.cpp", 22)})};
  ProjectIndex Index = mergeFacts(Files);
  EXPECT_EQ(Index.perStep("f:evaluate()"), nullptr);
  EXPECT_EQ(Index.perStep("f:report()"), nullptr);
  EXPECT_EQ(Index.perStep("f:trainEpoch()"), nullptr);
}

TEST(ProjectIndexTest, FunctionCallingATrainingLoopIsNeverPerStep) {
  // A loop calls runOne(), which calls trainEpoch() (the training loop)
  // and step(): runOne holds a training loop through its call, so the
  // loop is an epoch loop; step() is reached from nothing per step.
  FunctionFact TrainEpoch = fn("f:trainEpoch()", "epoch.cpp", 3);
  TrainEpoch.HasTrainingLoop = true;
  std::vector<FileFacts> Files = {
      file("main.cpp", {mainOf("main.cpp"), fn("f:runOne()", "main.cpp", 10)},
           {loopCall(mainUsr("main.cpp"), "f:runOne()", "main.cpp", 5, 4),
            call("f:runOne()", "f:trainEpoch()", "main.cpp", 11),
            call("f:runOne()", "f:step()", "main.cpp", 12)}),
      file("epoch.cpp", {TrainEpoch, fn("f:step()", "epoch.cpp", 20)})};
  ProjectIndex Index = mergeFacts(Files);
  EXPECT_EQ(Index.perStep("f:runOne()"), nullptr);
  EXPECT_EQ(Index.perStep("f:trainEpoch()"), nullptr);
  EXPECT_EQ(Index.perStep("f:step()"), nullptr);
}

TEST(ProjectIndexTest, PerStepClosureStopsAtATrainingFunction) {
  // A per-step function that (oddly) calls a function holding a training
  // loop: that one runs per epoch at most, never per step.
  FunctionFact Inner = fn("f:inner()", "b.cpp", 3);
  Inner.HasTrainingLoop = true;
  std::vector<FileFacts> Files = {
      file("a.cpp", {fn("f:outer()", "a.cpp", 1), fn("f:hook()", "a.cpp", 9)},
           {loopCall("f:outer()", "f:hook()", "a.cpp", 4, 3)}),
      file("b.cpp", {Inner}, {call("f:hook()", "f:inner()", "a.cpp", 10)})};
  ProjectIndex Index = mergeFacts(Files);
  EXPECT_EQ(Index.perStep("f:inner()"), nullptr);
}

TEST(ProjectIndexTest, CallOfABaseMethodReachesItsOverrides) {
  const char *Base = "f:Metric::update(double)";
  const char *Derived = "f:Accuracy::update(double)";
  const char *Further = "f:TopK::update(double)";
  FunctionFact Acc = fn(Derived, "accuracy.cpp", 5);
  Acc.Overrides = {Base};
  FunctionFact TopK = fn(Further, "topk.cpp", 5);
  TopK.Overrides = {Derived};
  FunctionFact TrainFn = fn(Train, "train.cpp", 3);
  TrainFn.HasTrainingLoop = true;
  std::vector<FileFacts> Files = {
      file("train.cpp", {TrainFn}, {loopCall(Train, Base, "train.cpp", 8, 6)}),
      file("accuracy.cpp", {Acc}), file("topk.cpp", {TopK})};
  ProjectIndex Index = mergeFacts(Files);
  const StepReason *Step = Index.perStep(Derived);
  ASSERT_NE(Step, nullptr);
  EXPECT_EQ(Step->Loop.File, "train.cpp");
  EXPECT_EQ(Step->Loop.Line, 6u);
  ASSERT_NE(Index.perStep(Further), nullptr);
  EXPECT_EQ(Index.perStep(Further)->Call.Line, 8u);
  // An override is never known to run once: LibTorch may call it.
  EXPECT_FALSE(Index.runsOnce(Derived));
}

TEST(ProjectIndexTest, ForwardNothingCallsIsPerStepByConvention) {
  FunctionFact Forward = fn("f:NetImpl::forward(at::Tensor)", "net.cpp", 4);
  Forward.PerStepByConvention = true;
  std::vector<FileFacts> Files = {
      file("net.cpp", {Forward, fn("f:helper()", "net.cpp", 12)},
           {call("f:NetImpl::forward(at::Tensor)", "f:helper()", "net.cpp",
                 6)})};
  ProjectIndex Index = mergeFacts(Files);
  const StepReason *Step = Index.perStep("f:NetImpl::forward(at::Tensor)");
  ASSERT_NE(Step, nullptr);
  EXPECT_TRUE(Step->Loop.File.empty());
  const StepReason *Helper = Index.perStep("f:helper()");
  ASSERT_NE(Helper, nullptr);
  EXPECT_TRUE(Helper->Loop.File.empty());
  EXPECT_EQ(Helper->Caller, "NetImpl::forward");
  EXPECT_FALSE(Index.runsOnce("f:NetImpl::forward(at::Tensor)"));
}

TEST(ProjectIndexTest, RunsOnceWhenCalledOnceFromMain) {
  std::vector<FileFacts> Files = {
      file("main.cpp", {mainOf("main.cpp")},
           {call(mainUsr("main.cpp"), "f:setup()", "main.cpp", 3),
            call(mainUsr("main.cpp"), "f:callback()", "main.cpp", 4)}),
      file("setup.cpp", {fn("f:setup()", "setup.cpp", 1),
                         fn("f:loadWeights()", "setup.cpp", 8)},
           {call("f:setup()", "f:loadWeights()", "setup.cpp", 3)})};
  FunctionFact Callback = fn("f:callback()", "setup.cpp", 20);
  Callback.AddressTaken = true;
  Files[1].Functions.push_back(Callback);
  ProjectIndex Index = mergeFacts(Files);
  EXPECT_TRUE(Index.runsOnce(mainUsr("main.cpp")));
  EXPECT_TRUE(Index.runsOnce("f:setup()"));
  EXPECT_TRUE(Index.runsOnce("f:loadWeights()"));
  // Called through a pointer too: not every call is seen.
  EXPECT_FALSE(Index.runsOnce("f:callback()"));
  // Nothing calls it, or not a project function.
  EXPECT_FALSE(Index.runsOnce("f:unknown()"));
}

TEST(ProjectIndexTest, RunsOnceNotWhenALoopRepeatsTheCall) {
  // main: for (epoch) { trainEpoch(); validate(); }  validate() calls
  // metrics(): both run once per epoch, not once.
  FunctionFact TrainEpoch = fn("f:trainEpoch()", "main.cpp", 20);
  TrainEpoch.HasTrainingLoop = true;
  std::vector<FileFacts> Files = {
      file("main.cpp", {mainOf("main.cpp"), TrainEpoch,
                        fn("f:validate()", "main.cpp", 30),
                        fn("f:metrics()", "main.cpp", 40)},
           {loopCall(mainUsr("main.cpp"), "f:trainEpoch()", "main.cpp", 4, 3),
            loopCall(mainUsr("main.cpp"), "f:validate()", "main.cpp", 5, 3),
            call("f:validate()", "f:metrics()", "main.cpp", 31)})};
  ProjectIndex Index = mergeFacts(Files);
  EXPECT_EQ(Index.perStep("f:validate()"), nullptr);
  EXPECT_FALSE(Index.runsOnce("f:validate()"));
  EXPECT_FALSE(Index.runsOnce("f:metrics()"));
  EXPECT_FALSE(Index.runsOnce("f:trainEpoch()"));
}

TEST(ProjectIndexTest, CudaReach) {
  FunctionFact Pick = fn("f:pickDevice()", "train.cpp", 2);
  Pick.SelectsCuda = true;
  FunctionFact TrainFn = fn(Train, "train.cpp", 10);
  TrainFn.HasTrainingLoop = true;
  FileFacts TrainFile =
      file("train.cpp", {mainOf("train.cpp"), Pick, TrainFn},
           {call(mainUsr("train.cpp"), "f:pickDevice()", "train.cpp", 20),
            call(mainUsr("train.cpp"), Train, "train.cpp", 21),
            loopCall(Train, "f:loss()", "train.cpp", 12, 11)});
  // A command-line tool of its own that never selects CUDA.
  FileFacts Tool = file("tool.cpp", {mainOf("tool.cpp")},
                        {call(mainUsr("tool.cpp"), "f:statsOnly()", "tool.cpp", 3)});
  FileFacts Lib = file("lib.cpp", {fn("f:loss()", "lib.cpp", 1),
                                   fn("f:statsOnly()", "lib.cpp", 9),
                                   fn("f:orphan()", "lib.cpp", 20)});
  ProjectIndex Index = mergeFacts({TrainFile, Tool, Lib});
  EXPECT_TRUE(Index.selectsCuda());
  EXPECT_EQ(Index.cudaReach("f:pickDevice()"), CudaReach::Yes);
  EXPECT_EQ(Index.cudaReach(Train), CudaReach::Yes);
  EXPECT_EQ(Index.cudaReach("f:loss()"), CudaReach::Yes);
  // Only the CPU-only tool calls it.
  EXPECT_EQ(Index.cudaReach("f:statsOnly()"), CudaReach::No);
  EXPECT_EQ(Index.cudaReach(mainUsr("tool.cpp")), CudaReach::No);
  EXPECT_EQ(Index.cudaReach("f:orphan()"), CudaReach::Unknown);
  EXPECT_EQ(Index.cudaReach("f:nothing()"), CudaReach::Unknown);
}

TEST(ProjectIndexTest, CudaReachFollowsTheDeviceOfItsProgram) {
  // main() picks the device through pickDevice() and then calls train():
  // train runs in a program that selects CUDA.
  FunctionFact Pick = fn("f:pickDevice()", "device.cpp", 2);
  Pick.SelectsCuda = true;
  FunctionFact TrainFn = fn(Train, "train.cpp", 10);
  TrainFn.HasTrainingLoop = true;
  std::vector<FileFacts> Files = {
      file("main.cpp", {mainOf("main.cpp")},
           {call(mainUsr("main.cpp"), "f:pickDevice()", "main.cpp", 3),
            call(mainUsr("main.cpp"), Train, "main.cpp", 4)}),
      file("device.cpp", {Pick}),
      file("train.cpp", {TrainFn, fn("f:loss()", "train.cpp", 30)},
           {loopCall(Train, "f:loss()", "train.cpp", 12, 11)})};
  ProjectIndex Index = mergeFacts(Files);
  EXPECT_EQ(Index.cudaReach("f:pickDevice()"), CudaReach::Yes);
  EXPECT_EQ(Index.cudaReach(Train), CudaReach::Yes);
  EXPECT_EQ(Index.cudaReach("f:loss()"), CudaReach::Yes);
}

TEST(ProjectIndexTest, CudaReachNoFromACpuOnlyProgram) {
  std::vector<FileFacts> Files = {
      file("tool.cpp", {mainOf("tool.cpp"), fn("f:summarize()", "tool.cpp", 9)},
           {call(mainUsr("tool.cpp"), "f:summarize()", "tool.cpp", 3)}),
      file("stats.cpp", {fn("f:histogram()", "stats.cpp", 1)},
           {call("f:summarize()", "f:histogram()", "tool.cpp", 10)})};
  ProjectIndex Index = mergeFacts(Files);
  EXPECT_FALSE(Index.selectsCuda());
  EXPECT_EQ(Index.cudaReach("f:summarize()"), CudaReach::No);
  EXPECT_EQ(Index.cudaReach("f:histogram()"), CudaReach::No);
}

TEST(ProjectIndexTest, OnlyAProjectWithAProgramNeverSelectsCuda) {
  // A library whose only main() runs its unit tests: the programs that use
  // it are elsewhere and pick the device.
  FileFacts Runner = file("runner.cpp", {mainOf("runner.cpp")});
  FileFacts Lib = file("lib.cpp", {fn("f:update()", "lib.cpp", 1)});
  ProjectIndex Library = mergeFacts({Runner, Lib});
  EXPECT_FALSE(Library.selectsCuda());
  EXPECT_FALSE(Library.neverSelectsCuda());
  EXPECT_FALSE(mergeFacts({Lib}).neverSelectsCuda());
  // A program of its own that never selects CUDA decides.
  FileFacts Tool = file("tool.cpp", {mainOf("tool.cpp")});
  Tool.HasProgram = true;
  ProjectIndex Program = mergeFacts({Runner, Lib, Tool});
  EXPECT_TRUE(Program.neverSelectsCuda());
  Tool.SelectsCuda = true;
  EXPECT_FALSE(mergeFacts({Runner, Lib, Tool}).neverSelectsCuda());
  // Stored and read back, in facts and in the index.
  llvm::Expected<FileFacts> Back = parseFacts(serializeFacts(Tool));
  ASSERT_TRUE(static_cast<bool>(Back)) << llvm::toString(Back.takeError());
  EXPECT_TRUE(Back->HasProgram);
  for (const ProjectIndex *I : {&Library, &Program}) {
    llvm::Expected<ProjectIndex> Read = ProjectIndex::parse(I->serialize());
    ASSERT_TRUE(static_cast<bool>(Read)) << llvm::toString(Read.takeError());
    EXPECT_EQ(Read->neverSelectsCuda(), I->neverSelectsCuda());
  }
  // An index written before programs were told apart reads as a program's.
  llvm::Expected<ProjectIndex> Old =
      ProjectIndex::parse("{\"version\": 1, \"cuda\": false}");
  ASSERT_TRUE(static_cast<bool>(Old)) << llvm::toString(Old.takeError());
  EXPECT_TRUE(Old->neverSelectsCuda());
}

TEST(ProjectIndexTest, ParamsEveryCallPassesOnTheHost) {
  // decode(ids, scores): both calls pass host ids, one passes device scores.
  CallFact First = call("f:generate()", "f:decode()", "gen.cpp", 4);
  First.HostArgs = 0b01;
  CallFact Second = call("f:report()", "f:decode()", "report.cpp", 9);
  Second.HostArgs = 0b11;
  FunctionFact Taken = fn("f:callback()", "lib.cpp", 20);
  Taken.AddressTaken = true;
  CallFact ToTaken = call("f:generate()", "f:callback()", "gen.cpp", 5);
  ToTaken.HostArgs = 0b1;
  std::vector<FileFacts> Files = {
      file("gen.cpp", {fn("f:generate()", "gen.cpp", 1)}, {First, ToTaken}),
      file("report.cpp", {fn("f:report()", "report.cpp", 8)}, {Second}),
      file("lib.cpp", {fn("f:decode()", "lib.cpp", 1), Taken,
                       fn("f:unused()", "lib.cpp", 30)})};
  ProjectIndex Index = mergeFacts(Files);
  EXPECT_TRUE(Index.paramOnHost("f:decode()", 0));
  EXPECT_FALSE(Index.paramOnHost("f:decode()", 1));
  EXPECT_FALSE(Index.paramOnHost("f:decode()", 40));
  // Called through its address too: other calls are not seen.
  EXPECT_FALSE(Index.paramOnHost("f:callback()", 0));
  // Not called at all.
  EXPECT_FALSE(Index.paramOnHost("f:unused()", 0));
  llvm::Expected<ProjectIndex> Back = ProjectIndex::parse(Index.serialize());
  ASSERT_TRUE(static_cast<bool>(Back)) << llvm::toString(Back.takeError());
  EXPECT_TRUE(Back->paramOnHost("f:decode()", 0));
  EXPECT_FALSE(Back->paramOnHost("f:decode()", 1));
  llvm::Expected<FileFacts> Facts = parseFacts(serializeFacts(Files[1]));
  ASSERT_TRUE(static_cast<bool>(Facts)) << llvm::toString(Facts.takeError());
  EXPECT_EQ(Facts->Calls.front().HostArgs, 0b11u);
}

TEST(ProjectIndexTest, CudaReachYesFromAFileThatSelectsCudaAtFileScope) {
  FileFacts Main = file("main.cpp", {mainOf("main.cpp")},
                        {call(mainUsr("main.cpp"), "f:run()", "main.cpp", 5)});
  Main.SelectsCuda = true; // e.g. a global torch::Device(torch::kCUDA)
  FileFacts Lib = file("lib.cpp", {fn("f:run()", "lib.cpp", 1)});
  ProjectIndex Index = mergeFacts({Main, Lib});
  EXPECT_TRUE(Index.selectsCuda());
  EXPECT_EQ(Index.cudaReach(mainUsr("main.cpp")), CudaReach::Yes);
  EXPECT_EQ(Index.cudaReach("f:run()"), CudaReach::Yes);
}

TEST(ProjectIndexTest, HostDataAndMembers) {
  FunctionFact Collate = fn("f:collate()", "data.cpp", 3);
  Collate.ReturnsHostData = true;
  FileFacts Data = file("data.cpp", {Collate, fn("f:other()", "data.cpp", 9)});
  MemberFact M;
  M.Usr = "v:Loss::weights";
  M.Name = "weights";
  M.Where = {"loss.cpp", 7};
  M.MadeOnHost = true;
  Data.Members.push_back(M);
  ProjectIndex Index = mergeFacts({Data});
  EXPECT_TRUE(Index.returnsHostData("f:collate()"));
  EXPECT_FALSE(Index.returnsHostData("f:other()"));
  const MemberFact *Got = Index.member("v:Loss::weights");
  ASSERT_NE(Got, nullptr);
  EXPECT_TRUE(Got->MadeOnHost);
  EXPECT_EQ(Got->Where.Line, 7u);
  EXPECT_EQ(Index.member("v:Loss::other"), nullptr);
}

TEST(ProjectIndexTest, ConvModulesRoundTripAndAnswer) {
  FileFacts F = file("conv.cpp", {fn("c:PaddedConvImpl#I#I#", "conv.cpp", 3)});
  ConvModuleFact C;
  C.Ctor = "c:PaddedConvImpl#I#I#";
  C.Class = "PaddedConvImpl";
  C.Member = "conv";
  C.Conv = "Conv2d";
  C.Param = 4;
  C.Where = {"conv.cpp", 7};
  F.ConvModules.push_back(C);
  std::string Json = serializeFacts(F);
  llvm::Expected<FileFacts> Back = parseFacts(Json);
  ASSERT_TRUE(static_cast<bool>(Back)) << llvm::toString(Back.takeError());
  ASSERT_EQ(Back->ConvModules.size(), 1u);
  EXPECT_EQ(Back->ConvModules[0].Param, 4);
  ProjectIndex Index = mergeFacts({*Back});
  llvm::Expected<ProjectIndex> Parsed = ProjectIndex::parse(Index.serialize());
  ASSERT_TRUE(static_cast<bool>(Parsed)) << llvm::toString(Parsed.takeError());
  const ConvModuleFact *Got = Parsed->convModule("c:PaddedConvImpl#I#I#");
  ASSERT_NE(Got, nullptr);
  EXPECT_EQ(Got->Member, "conv");
  EXPECT_EQ(Got->Where.Line, 7u);
  EXPECT_EQ(Parsed->convModule("c:Other#"), nullptr);
  // A stored result that asked depends on the answer.
  EXPECT_EQ(Parsed->answer("conv-module", "c:PaddedConvImpl#I#I#"),
            "PaddedConvImpl.conv:Conv2d,4@conv.cpp:7");
}

TEST(ProjectIndexTest, ClassFactsAndSettingsMergeAndRoundTrip) {
  // data.cpp defines a data set's get() and half of a module; model.cpp the
  // other half of the module and a setting.
  FileFacts Data = file("data.cpp", {fn("c:Data#get", "data.cpp", 3)});
  SampleCostFact C;
  C.Method = "c:Data#get";
  C.In = "'Data::get'";
  C.What = "OpenCV calls";
  C.Where = {"data.cpp", 5};
  Data.SampleCosts.push_back(C);
  ModuleLayersFact L;
  L.Class = "c:NetImpl";
  L.Name = "NetImpl";
  L.Convolution = true;
  Data.ModuleLayers.push_back(L);
  FileFacts Model = file("model.cpp", {fn("c:NetImpl#ctor", "model.cpp", 2)});
  L.Convolution = false;
  L.Matmul = true;
  Model.ModuleLayers.push_back(L);
  Model.LibrarySettings = {"setBenchmarkCuDNN", "setAllowTF32CuBLAS=off"};
  std::vector<FileFacts> Files;
  for (const FileFacts &F : {Data, Model}) {
    llvm::Expected<FileFacts> Back = parseFacts(serializeFacts(F));
    ASSERT_TRUE(static_cast<bool>(Back)) << llvm::toString(Back.takeError());
    Files.push_back(std::move(*Back));
  }
  llvm::Expected<ProjectIndex> Index =
      ProjectIndex::parse(mergeFacts(Files).serialize());
  ASSERT_TRUE(static_cast<bool>(Index)) << llvm::toString(Index.takeError());
  const SampleCostFact *Cost = Index->sampleCost("c:Data#get");
  ASSERT_NE(Cost, nullptr);
  EXPECT_EQ(Cost->What, "OpenCV calls");
  EXPECT_EQ(Cost->Where.Line, 5u);
  EXPECT_EQ(Index->sampleCost("c:Other#get"), nullptr);
  // Each file saw part of the module: the index knows both layers.
  const ModuleLayersFact *Layers = Index->moduleLayers("c:NetImpl");
  ASSERT_NE(Layers, nullptr);
  EXPECT_TRUE(Layers->Convolution);
  EXPECT_TRUE(Layers->Matmul);
  EXPECT_TRUE(Index->makesSetting("setBenchmarkCuDNN"));
  EXPECT_TRUE(Index->makesSetting("setAllowTF32CuBLAS=off"));
  EXPECT_FALSE(Index->makesSetting("setAllowTF32CuBLAS"));
  EXPECT_EQ(Index->answer("sample-cost", "c:Data#get"),
            "'Data::get':OpenCV calls+0@data.cpp:5");
  EXPECT_EQ(Index->answer("module-layers", "c:NetImpl"), "conv,matmul");
  EXPECT_EQ(Index->answer("setting", "setBenchmarkCuDNN"), "1");
}

TEST(ProjectIndexTest, SampleCostsFollowTheCallGraph) {
  // get() decodes through a helper of another file; aug() runs 2 tensor
  // operations and calls jitter(), which runs 3 more; plain() runs 1.
  auto Own = [](llvm::StringRef Usr, llvm::StringRef In, llvm::StringRef What,
                unsigned Line, unsigned Ops) {
    SampleCostFact C;
    C.Method = Usr.str();
    C.In = In.str();
    C.What = What.str();
    C.Where = {"x.cpp", Line};
    C.TensorOps = Ops;
    return C;
  };
  FileFacts Data = file("data.cpp",
                        {fn("c:get", "data.cpp", 1), fn("c:aug", "data.cpp", 2),
                         fn("c:plain", "data.cpp", 3)},
                        {call("c:get", "c:decode", "data.cpp", 1),
                         call("c:aug", "c:jitter", "data.cpp", 2)});
  Data.SampleCosts = {Own("c:aug", "'aug'", "", 2, 2),
                      Own("c:plain", "'plain'", "", 3, 1)};
  FileFacts Image = file("image.cpp", {fn("c:decode", "image.cpp", 9),
                                       fn("c:jitter", "image.cpp", 12)});
  Image.SampleCosts = {Own("c:decode", "'decode'", "image decoding", 10, 0),
                       Own("c:jitter", "'jitter'", "", 13, 3)};
  ProjectIndex Index = mergeFacts({Data, Image});
  const SampleCostFact *Get = Index.sampleCost("c:get");
  ASSERT_NE(Get, nullptr);
  EXPECT_EQ(Get->What, "image decoding");
  EXPECT_EQ(Get->In, "'decode'");
  EXPECT_EQ(Get->Where.Line, 10u);
  const SampleCostFact *Aug = Index.sampleCost("c:aug");
  ASSERT_NE(Aug, nullptr);
  EXPECT_EQ(Aug->What, "");
  EXPECT_EQ(Aug->TensorOps, 5u);
  EXPECT_EQ(Aug->In, "'aug'");
  ASSERT_NE(Index.sampleCost("c:plain"), nullptr);
  EXPECT_EQ(Index.sampleCost("c:plain")->TensorOps, 1u);
  EXPECT_EQ(Index.sampleCost("c:unknown"), nullptr);
}

TEST(ProjectIndexTest, CallsWithoutGrad) {
  // evaluate() is called twice, both times under a guard; predict() once
  // under one and once not; unused() never.
  CallFact Guarded = call("c:main", "c:evaluate", "main.cpp", 3);
  Guarded.NoGrad = true;
  CallFact Again = call("c:main", "c:evaluate", "main.cpp", 4);
  Again.NoGrad = true;
  CallFact Mixed = call("c:main", "c:predict", "main.cpp", 5);
  Mixed.NoGrad = true;
  FileFacts Main = file("main.cpp", {fn("c:main", "main.cpp", 1)},
                        {Guarded, Again, Mixed,
                         call("c:main", "c:predict", "main.cpp", 6)});
  FileFacts Eval = file("eval.cpp", {fn("c:evaluate", "eval.cpp", 1),
                                     fn("c:predict", "eval.cpp", 5),
                                     fn("c:unused", "eval.cpp", 9)});
  llvm::Expected<FileFacts> Back = parseFacts(serializeFacts(Main));
  ASSERT_TRUE(static_cast<bool>(Back)) << llvm::toString(Back.takeError());
  llvm::Expected<ProjectIndex> Index =
      ProjectIndex::parse(mergeFacts({*Back, Eval}).serialize());
  ASSERT_TRUE(static_cast<bool>(Index)) << llvm::toString(Index.takeError());
  EXPECT_TRUE(Index->calledOnlyWithoutGrad("c:evaluate"));
  EXPECT_FALSE(Index->calledOnlyWithoutGrad("c:predict"));
  EXPECT_FALSE(Index->calledOnlyWithoutGrad("c:unused"));
  EXPECT_EQ(Index->answer("nograd", "c:evaluate"), "1");
}

TEST(ProjectIndexTest, FactsRoundTrip) {
  FileFacts F = loggerProject()[0];
  F.SelectsCuda = true;
  F.Inputs = {{"train.cpp", 120, 1234567890123}};
  F.Functions[1].Overrides = {"f:Base::train()"};
  MemberFact M;
  M.Usr = "v:A::b";
  M.Name = "b";
  M.Where = {"train.cpp", 2};
  F.Members.push_back(M);
  std::string Json = serializeFacts(F);
  llvm::Expected<FileFacts> Back = parseFacts(Json);
  ASSERT_TRUE(static_cast<bool>(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(serializeFacts(*Back), Json);
  EXPECT_EQ(Back->Inputs.front().ModifiedNs, 1234567890123);
  ASSERT_TRUE(Back->Calls[1].Loop.has_value());
  EXPECT_EQ(Back->Calls[1].Loop->Line, 5u);
  EXPECT_FALSE(Back->Calls[0].Loop.has_value());
}

TEST(ProjectIndexTest, IndexRoundTrip) {
  std::vector<FileFacts> Files = loggerProject();
  Files[0].Inputs = {{"train.cpp", 10, 20}};
  Files[1].Inputs = {{"logger.cpp", 30, 40}, {"train.cpp", 10, 20}};
  ProjectIndex Index = mergeFacts(Files);
  std::string Json = Index.serialize();
  // The same facts give the same bytes.
  EXPECT_EQ(mergeFacts(Files).serialize(), Json);
  llvm::Expected<ProjectIndex> Back = ProjectIndex::parse(Json);
  ASSERT_TRUE(static_cast<bool>(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->serialize(), Json);
  ASSERT_NE(Back->perStep(Record), nullptr);
  EXPECT_EQ(Back->perStep(Record)->Caller, "Logger::update");
  EXPECT_TRUE(Back->runsOnce(Train));
  // Each input once.
  EXPECT_EQ(Back->inputs().size(), 2u);
}

std::string facts(llvm::StringRef Json) {
  llvm::Expected<FileFacts> F = parseFacts(Json);
  return F ? "" : llvm::toString(F.takeError());
}

std::string index(llvm::StringRef Json) {
  llvm::Expected<ProjectIndex> I = ProjectIndex::parse(Json);
  return I ? "" : llvm::toString(I.takeError());
}

TEST(ProjectIndexTest, MalformedJsonIsAnError) {
  for (llvm::StringRef Bad :
       {"", "{", "[]", "null", "{\"version\": 2}", "{\"functions\": []}",
        "{\"version\": 1, \"functions\": [1]}",
        "{\"version\": 1, \"members\": [[]]}",
        "{\"version\": 1, \"inputs\": [[\"a.cpp\"]]}",
        "{\"version\": 1, \"inputs\": [[1, 2, 3]]}",
        "{\"version\": 1, \"inputs\": [3]}"}) {
    EXPECT_NE(facts(Bad), "") << Bad.str();
    EXPECT_NE(index(Bad), "") << Bad.str();
  }
  // An index has no calls.
  EXPECT_NE(facts("{\"version\": 1, \"calls\": [\"x\"]}"), "");
  EXPECT_NE(index("{\"version\": 1, \"functions\": [{\"step\": 3}, 4]}"), "");
}

TEST(ProjectIndexTest, OddButWellFormedJsonDoesNotCrash) {
  // Wrong types inside entries read as absent facts.
  EXPECT_EQ(facts("{\"version\": 1, \"functions\": [{\"usr\": 3, \"at\": "
                  "\"x\", \"overrides\": [1, \"f:a()\"]}], \"calls\": "
                  "[{\"loop\": 5, \"at\": [1, \"x\"]}]}"),
            "");
  EXPECT_EQ(index("{\"version\": 1, \"functions\": [{\"usr\": \"f:a()\", "
                  "\"step\": {\"loop\": [\"a.cpp\"], \"call\": 1}}]}"),
            "");
  llvm::Expected<FileFacts> F = parseFacts(
      "{\"version\": 1, \"calls\": [{\"from\": \"f:a()\", \"to\": "
      "\"f:b()\", \"loop\": 5}]}");
  ASSERT_TRUE(static_cast<bool>(F));
  // A merge of facts that name functions nobody defines.
  ProjectIndex Index = mergeFacts({*F});
  EXPECT_EQ(Index.perStep("f:b()"), nullptr);
}

TEST(ProjectIndexTest, FirstStaleInputNamesTheChangedFile) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(fs::createUniqueDirectory("project-index-test", Dir));
  auto Write = [&](llvm::StringRef Name, llvm::StringRef Text) {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    OS << Text;
    return P.str().str();
  };
  std::string A = Write("a.cpp", "int a;\n");
  std::string B = Write("b.cpp", "int b;\n");
  FileFacts FA = file(A, {}), FB = file(B, {});
  FA.Inputs = {*stampOf(A)};
  FB.Inputs = {*stampOf(B)};
  ProjectIndex Index = mergeFacts({FA, FB});
  EXPECT_EQ(Index.firstStaleInput(), "");
  Write("b.cpp", "int b, c;\n");
  EXPECT_EQ(Index.firstStaleInput(), B);
  // The main file of a run is read as it is now: its own change is not
  // staleness.
  EXPECT_EQ(Index.firstStaleInput(B), "");
  fs::remove(A);
  EXPECT_EQ(Index.firstStaleInput(B), A);
  EXPECT_FALSE(stampOf(A).has_value());
  fs::remove_directories(Dir);
}

} // namespace
} // namespace clang::tidy::torch::utils
