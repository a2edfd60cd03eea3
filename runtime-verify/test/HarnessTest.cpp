//===--- HarnessTest.cpp - libtorch-tidy-verify ---------------------------===//
//
// Unit tests of the harness side that needs no LibTorch: binding snippets to
// fixtures, the generated translation unit, LibTorch discovery order, and
// child processes with limits.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "Process.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace torchtidy {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

bool has(const std::string &Text, const std::string &Part) {
  return Text.find(Part) != std::string::npos;
}

void touch(const fs::path &P, const std::string &Text = "") {
  fs::create_directories(P.parent_path());
  std::ofstream(P) << Text;
}

/// A fake LibTorch install: enough files for discovery.
fs::path fakeTorch(const fs::path &Prefix, bool Cuda) {
  touch(Prefix / "share/cmake/Torch/TorchConfig.cmake",
        "set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=0\")\n");
  touch(Prefix / "include/torch/csrc/api/include/torch/torch.h");
  touch(Prefix / "lib/libtorch_cpu.so");
  if (Cuda)
    touch(Prefix / "lib/libtorch_cuda.so");
  return Prefix / "share/cmake/Torch";
}

TEST(HarnessTest, Options) {
  BindingConfig C;
  std::string E;
  EXPECT_TRUE(parseShapeOption("x=16x3x32x32", C, E));
  EXPECT_TRUE(C.Tensors["x"].Sizes == std::vector<int64_t>({16, 3, 32, 32}));
  EXPECT_TRUE(C.Tensors["x"].Dtype == "kFloat");
  EXPECT_TRUE(parseShapeOption("labels=16:kLong", C, E));
  EXPECT_TRUE(C.Tensors["labels"].Dtype == "kLong");
  EXPECT_TRUE(!parseShapeOption("x=4,8", C, E));
  EXPECT_TRUE(has(E, "expected NAME=DIMS"));
  EXPECT_TRUE(!parseShapeOption("x=4:kQuux", C, E));
  EXPECT_TRUE(has(E, "unknown dtype kQuux"));
  EXPECT_TRUE(parseValueOption("n=3", C, E) && C.Values["n"] == "3");
  EXPECT_TRUE(parseValueOption("flag=true", C, E) &&
              C.Values["flag"] == "true");
  EXPECT_TRUE(!parseValueOption("n=three", C, E));
}

json code(json Free, json Constructions = json::array(),
          json Declarations = json::array()) {
  return {{"unit", "statement"},
          {"first_line", 7},
          {"before", "  auto y = x.to(device);\n"},
          {"after", "  auto y = x;\n"},
          {"free_variables", Free},
          {"constructions", Constructions},
          {"declarations", Declarations}};
}

TEST(HarnessTest, Binding) {
  BindingConfig C;
  std::string E;
  parseShapeOption("x=4x8", C, E);
  parseValueOption("steps=5", C, E);
  Binding B = bindSnippet(code({{{"name", "x"}, {"type", "const at::Tensor &"}},
                                {{"name", "device"}, {"type", "torch::Device"}},
                                {{"name", "steps"}, {"type", "int64_t"}},
                                {{"name", "total"}, {"type", "double &"}}},
                               json::array(),
                               {{{"name", "y"}, {"type", "at::Tensor"}}}),
                          C);
  EXPECT_TRUE(B.Bound);
  EXPECT_TRUE(
      has(B.Fixtures,
          "torch::Tensor x = torchtidy::tensor({4, 8}, torch::kFloat);"));
  EXPECT_TRUE(has(B.Fixtures, "torch::Device device = torchtidy::device();"));
  EXPECT_TRUE(has(B.Fixtures, "int64_t steps = 5;"));
  EXPECT_TRUE(has(B.Fixtures, "double total = 0;"));
  EXPECT_TRUE(
      (B.Compared == std::vector<std::string>{"x", "steps", "total", "y"}));

  // No shape for a tensor: not bound, and the reason says how to give one.
  B = bindSnippet(code({{{"name", "data"}, {"type", "at::Tensor"}}}), C);
  EXPECT_TRUE(!B.Bound);
  EXPECT_TRUE(has(B.Reason, "--shape data=DIMS"));
  // A user type has no fixture.
  B = bindSnippet(code({{{"name", "loader"}, {"type", "MyLoader &"}}}), C);
  EXPECT_TRUE(!B.Bound &&
              has(B.Reason, "no fixture for 'loader' of type 'MyLoader &'"));
  // Members of the enclosing class are not rebuilt.
  B = bindSnippet(
      code({{{"name", "this->conv1"}, {"type", "torch::nn::Conv2d"}}}), C);
  EXPECT_TRUE(!B.Bound && has(B.Reason, "member of the enclosing class"));
  // Modules and optimizers replay their construction, dependencies first.
  B = bindSnippet(
      code({{{"name", "optimizer"}, {"type", "torch::optim::SGD"}}},
           {{{"name", "model"}, {"code", "torch::nn::Linear model(8, 2)"}},
            {{"name", "optimizer"},
             {"code",
              "torch::optim::SGD optimizer(model->parameters(), 0.1)"}}}),
      C);
  EXPECT_TRUE(B.Bound);
  EXPECT_TRUE(B.Fixtures.find("torch::nn::Linear model(8, 2);") <
              B.Fixtures.find("torch::optim::SGD optimizer("));
}

TEST(HarnessTest, Generate) {
  BindingConfig C;
  std::string E;
  parseShapeOption("x=4x8", C, E);
  json Code = code({{{"name", "x"}, {"type", "at::Tensor"}},
                    {{"name", "device"}, {"type", "torch::Device"}}},
                   json::array(), {{{"name", "y"}, {"type", "at::Tensor"}}});
  HarnessEntry Entry{3, bindSnippet(Code, C), Code, "/src/my \"train\".cpp"};
  std::string TU = generateHarness({Entry, Entry});
  EXPECT_TRUE(has(TU, "// finding 3"));
  EXPECT_TRUE(has(TU, "namespace ltt_entry_1 {"));
  // Errors in the snippet point at the user's file and line.
  EXPECT_TRUE(has(
      TU, "#line 7 \"/src/my \\\"train\\\".cpp\"\n  auto y = x.to(device);\n"));
  EXPECT_TRUE(has(TU, "  auto y = x;\n"));
  EXPECT_TRUE(has(TU, "ltt_run.capture(\"y\", y);"));
  EXPECT_TRUE(has(TU, "ltt_state.add(\"x\", x);"));
  EXPECT_TRUE(!has(TU, "ltt_state.add(\"y\", y);"));
  EXPECT_TRUE(has(TU, "torchtidy::harnessMain(argc, argv, LttEntries, 2)"));
  // The #line back to the harness names the harness's own next line.
  size_t At = TU.find("#line ", TU.find("auto y = x.to(device);"));
  int Line = std::atoi(TU.c_str() + At + 6);
  int Actual = 1;
  for (size_t I = 0; I < At; ++I)
    Actual += TU[I] == '\n';
  EXPECT_TRUE(Line == Actual + 1);
}

TEST(HarnessTest, Locate) {
  TempDir Dir;
  ASSERT_TRUE(Dir.ok());
  const fs::path Tmp = Dir.path();
  fs::path A = fakeTorch(Tmp / "a", /*Cuda=*/false);
  fs::path B = fakeTorch(Tmp / "b", /*Cuda=*/true);
  fs::create_directories(Tmp / "emptyusr");
  ::setenv("LIBTORCH_TIDY_PYTHON", "/nonexistent-python", 1);
  ::setenv("LIBTORCH_TIDY_SYSTEM_PREFIX", (Tmp / "emptyusr").c_str(), 1);
  ::unsetenv("CMAKE_PREFIX_PATH");
  std::vector<std::string> Tried;

  // --torch-dir comes first, as a prefix or a CMake directory.
  ::setenv("Torch_DIR", B.c_str(), 1);
  auto T = locateTorch((Tmp / "a").string(), Tried);
  EXPECT_TRUE(T && T->From == "--torch-dir" && !T->Cuda);
  EXPECT_TRUE(T && T->CxxAbi == "0");
  EXPECT_TRUE(T && T->LibDir == fs::canonical(Tmp / "a/lib").string());
  EXPECT_TRUE(T && T->IncludeDirs.size() == 2 &&
              has(T->IncludeDirs[1], "include/torch/csrc/api/include"));
  // A --torch-dir without LibTorch is not silently replaced by another.
  Tried.clear();
  EXPECT_TRUE(!locateTorch((Tmp / "emptyusr").string(), Tried));
  EXPECT_TRUE(Tried.size() == 1 && has(Tried[0], "--torch-dir"));
  // Then Torch_DIR, then CMAKE_PREFIX_PATH.
  T = locateTorch("", Tried);
  EXPECT_TRUE(T && T->From == "Torch_DIR" && T->Cuda);
  ::unsetenv("Torch_DIR");
  ::setenv("CMAKE_PREFIX_PATH", ("/nowhere:" + (Tmp / "a").string()).c_str(),
           1);
  T = locateTorch("", Tried);
  EXPECT_TRUE(T && T->From == "CMAKE_PREFIX_PATH");
  ::unsetenv("CMAKE_PREFIX_PATH");
  // Then Python's torch package: a fake python that prints the prefix.
  touch(Tmp / "python",
        "#!/bin/sh\necho " + (Tmp / "b/share/cmake").string() + "\n");
  fs::permissions(Tmp / "python", fs::perms::owner_all);
  ::setenv("LIBTORCH_TIDY_PYTHON", (Tmp / "python").c_str(), 1);
  T = locateTorch("", Tried);
  EXPECT_TRUE(T && T->From == "Python torch package" && T->Cuda);
  // Then Debian's; nothing anywhere: the list of what was tried.
  ::setenv("LIBTORCH_TIDY_PYTHON", "/nonexistent-python", 1);
  fakeTorch(Tmp / "usr", false);
  fs::create_directories(Tmp / "usr/lib/x86_64-linux-gnu/cmake");
  fs::rename(Tmp / "usr/share/cmake/Torch",
             Tmp / "usr/lib/x86_64-linux-gnu/cmake/Torch");
  ::setenv("LIBTORCH_TIDY_SYSTEM_PREFIX", (Tmp / "usr").c_str(), 1);
  T = locateTorch("", Tried);
  EXPECT_TRUE(T && T->From == "Debian libtorch-dev");
  ::setenv("LIBTORCH_TIDY_SYSTEM_PREFIX", (Tmp / "emptyusr").c_str(), 1);
  Tried.clear();
  EXPECT_TRUE(!locateTorch("", Tried));
  EXPECT_TRUE(Tried.size() == 2 && has(Tried[0], "no torch package") &&
              has(Tried[1], "Debian libtorch-dev"));
}

/// Forks 100 sleepers, going on when a fork fails, as a fork bomb would.
const std::vector<std::string> ForkMany = {"python3", "-c",
                                           "import os, time\n"
                                           "for i in range(100):\n"
                                           "    try:\n"
                                           "        if os.fork() == 0:\n"
                                           "            time.sleep(30)\n"
                                           "            os._exit(0)\n"
                                           "    except OSError:\n"
                                           "        pass\n"
                                           "time.sleep(30)\n"};

/// RLIMIT_NPROC, which root is exempt from: as nobody, in a child that has
/// not chosen its mechanism yet (the choice is made once per process).
void testTaskLimitAsUser() {
  if (::geteuid() != 0) // the machine's own mechanism is tested below
    return;
  pid_t Pid = ::fork();
  if (Pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0)
      ::_exit(2);
    if (taskLimitMechanism() != "RLIMIT_NPROC")
      ::_exit(3);
    Limits L{30, 0};
    L.MaxTasks = 20;
    ProcessResult R = runProcess(ForkMany, "/", L);
    if (!R.TaskLimit || R.Seconds > 10)
      ::_exit(4);
    // Also in an unprivileged sandbox, whose user namespace the limit
    // reaches.
    Sandbox Box = probeSandbox(false);
    if (Box.K != Sandbox::Kind::None) {
      TempDir Dir;
      L.Confine = &Box;
      R = runProcess(ForkMany, Dir.path(), L);
      if (!Dir.ok() || !R.TaskLimit || R.Seconds > 10)
        ::_exit(5);
    }
    std::printf("as nobody: RLIMIT_NPROC, sandbox %s\n", Box.Describe.c_str());
    std::fflush(stdout);
    ::_exit(0);
  }
  int Status = 0;
  EXPECT_TRUE(::waitpid(Pid, &Status, 0) == Pid && WIFEXITED(Status) &&
              WEXITSTATUS(Status) == 0);
}

TEST(HarnessTest, Process) {
  testTaskLimitAsUser();
  ProcessResult R = runProcess({"sh", "-c", "echo out; echo err >&2; exit 7"},
                               "", Limits{10, 0});
  EXPECT_TRUE(R.Started && R.ExitCode == 7 && !R.TimedOut);
  EXPECT_TRUE(has(R.Output, "out") && has(R.Output, "err"));
  // A hang is killed at the limit, with what it started.
  R = runProcess({"sh", "-c", "sleep 30 & sleep 30"}, "", Limits{0.5, 0});
  EXPECT_TRUE(R.TimedOut && R.Seconds < 5);
  // A crash is reported by its signal.
  R = runProcess({"sh", "-c", "kill -SEGV $$"}, "", Limits{10, 0});
  EXPECT_TRUE(R.Signal == 11);
  // The memory limit holds.
  R = runProcess({"sh", "-c",
                  "x=$(head -c 200000000 /dev/zero | tr '\\0' a); "
                  "echo ${#x}"},
                 "", Limits{30, 64});
  EXPECT_TRUE(R.ExitCode != 0 || !has(R.Output, "200000000"));
  R = runProcess({"/nonexistent-binary"}, "", Limits{10, 0});
  EXPECT_TRUE(R.ExitCode == 127);
  // No input: a snippet cannot wait on the terminal.
  R = runProcess({"sh", "-c", "cat; echo done"}, "", Limits{10, 0});
  EXPECT_TRUE(R.ExitCode == 0 && has(R.Output, "done") && !R.TimedOut);
  // Too many processes: stopped at once, not at the time limit, and
  // nothing of it is left.
  std::string Mechanism = taskLimitMechanism();
  std::printf("process-count limit: %s\n", Mechanism.c_str());
  if (Mechanism.rfind("none", 0) != 0) {
    Limits L{60, 0};
    L.MaxTasks = 20;
    R = runProcess(ForkMany, "", L);
    EXPECT_TRUE(R.TaskLimit && R.Seconds < 10);
    // Within the limit nothing happens.
    R = runProcess({"sh", "-c", "sleep 0.1 & sleep 0.1 & wait; exit 5"}, "", L);
    EXPECT_TRUE(!R.TaskLimit && R.ExitCode == 5);
  }
  // The temporary directory goes, with its contents.
  std::string Path;
  {
    TempDir D;
    EXPECT_TRUE(D.ok());
    Path = D.path();
    touch(fs::path(Path) / "sub/file", "x");
    EXPECT_TRUE(liveTempDir() && Path == liveTempDir());
  }
  EXPECT_TRUE(!fs::exists(Path));
}

/// The sandboxes this machine has, each as harnesses run in them.
TEST(HarnessTest, Sandbox) {
  TempDir Dir;
  ASSERT_TRUE(Dir.ok());
  const std::string Tmp = Dir.path();
  Sandbox None = probeSandbox(/*Disabled=*/true);
  EXPECT_TRUE(None.K == Sandbox::Kind::None &&
              None.Describe == "none: --no-sandbox");
  Sandbox Box = probeSandbox(false);
  std::printf("sandbox: %s\n", Box.Describe.c_str());
  ::setenv("LIBTORCH_TIDY_BWRAP", "/nonexistent-bwrap", 1);
  Sandbox Fallback = probeSandbox(false);
  ::unsetenv("LIBTORCH_TIDY_BWRAP");
  std::printf("without bwrap: %s\n", Fallback.Describe.c_str());
  EXPECT_TRUE(Fallback.K != Sandbox::Kind::Bubblewrap &&
              has(Fallback.Describe, "bwrap not found") &&
              !Fallback.Note.empty());
  fs::path Outside = fs::path(Tmp) / "outside";
  fs::path Inside = fs::path(Tmp) / "inside";
  fs::create_directories(Inside);
  for (const Sandbox *S : {&Box, &Fallback}) {
    if (S->K == Sandbox::Kind::None)
      continue;
    Limits L{30, 0};
    L.Confine = S;
    // Own directory writable, no network but loopback, exit status through.
    ProcessResult R = runProcess(
        {"sh", "-c",
         "echo x > own && test $(grep -c : /proc/net/dev) -eq 1 && exit 3"},
        Inside.string(), L);
    EXPECT_TRUE(R.ExitCode == 3);
    EXPECT_TRUE(fs::exists(Inside / "own"));
    // A time limit still kills all of it.
    L.Seconds = 0.5;
    R = runProcess({"sh", "-c", "sleep 30 & sleep 30"}, Inside.string(), L);
    EXPECT_TRUE(R.TimedOut && R.Seconds < 5);
    L.Seconds = 30;
    if (S->K != Sandbox::Kind::Bubblewrap)
      continue;
    // Nothing outside is writable, in /tmp or not, not even after trying
    // to remount (root keeps no capabilities); a signal is reported as such.
    char VarTmp[] = "/var/tmp/libtorch-tidy-harness-test.XXXXXX";
    bool HaveVarTmp = ::mkdtemp(VarTmp) != nullptr;
    R = runProcess({"sh", "-c",
                    "mount -o remount,rw,bind / 2>/dev/null; echo x > \"$1\"; "
                    "echo x > \"$2/outside\"; kill -SEGV $$",
                    "sh", Outside.string(), VarTmp},
                   Inside.string(), L);
    EXPECT_TRUE(R.Signal == 11);
    EXPECT_TRUE(!fs::exists(Outside));
    if (HaveVarTmp) {
      EXPECT_TRUE(!fs::exists(fs::path(VarTmp) / "outside"));
      std::error_code EC;
      fs::remove_all(VarTmp, EC);
    }
  }
}

TEST(HarnessTest, StaleTempDirs) {
  TempDir Dir;
  ASSERT_TRUE(Dir.ok());
  const std::string Tmp = Dir.path();
  std::string Saved = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "";
  ::setenv("TMPDIR", Tmp.c_str(), 1);
  pid_t Dead = ::fork();
  if (Dead == 0)
    ::_exit(0);
  ::waitpid(Dead, nullptr, 0);
  fs::path Stale = fs::path(Tmp) /
                   ("libtorch-tidy-verify." + std::to_string(Dead) + ".abcdef");
  fs::path Live = fs::path(Tmp) / ("libtorch-tidy-verify." +
                                   std::to_string(::getpid()) + ".abcdef");
  fs::path Other = fs::path(Tmp) / "libtorch-tidy-verify.other";
  touch(Stale / "harness");
  touch(Live / "harness");
  touch(Other / "harness");
  EXPECT_TRUE(removeStaleTempDirs() == 1);
  EXPECT_TRUE(!fs::exists(Stale) && fs::exists(Live) && fs::exists(Other));
  if (Saved.empty())
    ::unsetenv("TMPDIR");
  else
    ::setenv("TMPDIR", Saved.c_str(), 1);
}

} // namespace
} // namespace torchtidy
