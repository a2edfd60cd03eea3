//===--- HarnessTest.cpp - libtorch-tidy-verify ---------------------------===//
//
// Unit tests of the harness side that needs no LibTorch: binding snippets to
// fixtures, the generated translation unit, LibTorch discovery order, and
// child processes with limits.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "Process.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using nlohmann::json;
using namespace torchverify;
namespace fs = std::filesystem;

static int Failures = 0;
#define CHECK(Cond)                                                            \
  do {                                                                         \
    if (!(Cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,    \
                   #Cond);                                                     \
      ++Failures;                                                              \
    }                                                                          \
  } while (0)

static bool has(const std::string &Text, const std::string &Part) {
  return Text.find(Part) != std::string::npos;
}

static void touch(const fs::path &P, const std::string &Text = "") {
  fs::create_directories(P.parent_path());
  std::ofstream(P) << Text;
}

/// A fake LibTorch install: enough files for discovery.
static fs::path fakeTorch(const fs::path &Prefix, bool Cuda) {
  touch(Prefix / "share/cmake/Torch/TorchConfig.cmake",
        "set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=0\")\n");
  touch(Prefix / "include/torch/csrc/api/include/torch/torch.h");
  touch(Prefix / "lib/libtorch_cpu.so");
  if (Cuda)
    touch(Prefix / "lib/libtorch_cuda.so");
  return Prefix / "share/cmake/Torch";
}

static void testOptions() {
  BindingConfig C;
  std::string E;
  CHECK(parseShapeOption("x=16x3x32x32", C, E));
  CHECK(C.Tensors["x"].Sizes == std::vector<int64_t>({16, 3, 32, 32}));
  CHECK(C.Tensors["x"].Dtype == "kFloat");
  CHECK(parseShapeOption("labels=16:kLong", C, E));
  CHECK(C.Tensors["labels"].Dtype == "kLong");
  CHECK(!parseShapeOption("x=4,8", C, E));
  CHECK(has(E, "expected NAME=DIMS"));
  CHECK(!parseShapeOption("x=4:kQuux", C, E));
  CHECK(has(E, "unknown dtype kQuux"));
  CHECK(parseValueOption("n=3", C, E) && C.Values["n"] == "3");
  CHECK(parseValueOption("flag=true", C, E) && C.Values["flag"] == "true");
  CHECK(!parseValueOption("n=three", C, E));
}

static json code(json Free, json Constructions = json::array(),
                 json Declarations = json::array()) {
  return {{"unit", "statement"},
          {"first_line", 7},
          {"before", "  auto y = x.to(device);\n"},
          {"after", "  auto y = x;\n"},
          {"free_variables", Free},
          {"constructions", Constructions},
          {"declarations", Declarations}};
}

static void testBinding() {
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
  CHECK(B.Bound);
  CHECK(
      has(B.Fixtures, "torch::Tensor x = ltt::tensor({4, 8}, torch::kFloat);"));
  CHECK(has(B.Fixtures, "torch::Device device = ltt::device();"));
  CHECK(has(B.Fixtures, "int64_t steps = 5;"));
  CHECK(has(B.Fixtures, "double total = 0;"));
  CHECK((B.Compared == std::vector<std::string>{"x", "steps", "total", "y"}));

  // No shape for a tensor: not bound, and the reason says how to give one.
  B = bindSnippet(code({{{"name", "data"}, {"type", "at::Tensor"}}}), C);
  CHECK(!B.Bound);
  CHECK(has(B.Reason, "--shape data=DIMS"));
  // A user type has no fixture.
  B = bindSnippet(code({{{"name", "loader"}, {"type", "MyLoader &"}}}), C);
  CHECK(!B.Bound &&
        has(B.Reason, "no fixture for 'loader' of type 'MyLoader &'"));
  // Members of the enclosing class are not rebuilt.
  B = bindSnippet(
      code({{{"name", "this->conv1"}, {"type", "torch::nn::Conv2d"}}}), C);
  CHECK(!B.Bound && has(B.Reason, "member of the enclosing class"));
  // Modules and optimizers replay their construction, dependencies first.
  B = bindSnippet(
      code({{{"name", "optimizer"}, {"type", "torch::optim::SGD"}}},
           {{{"name", "model"}, {"code", "torch::nn::Linear model(8, 2)"}},
            {{"name", "optimizer"},
             {"code",
              "torch::optim::SGD optimizer(model->parameters(), 0.1)"}}}),
      C);
  CHECK(B.Bound);
  CHECK(B.Fixtures.find("torch::nn::Linear model(8, 2);") <
        B.Fixtures.find("torch::optim::SGD optimizer("));
}

static void testGenerate() {
  BindingConfig C;
  std::string E;
  parseShapeOption("x=4x8", C, E);
  json Code = code({{{"name", "x"}, {"type", "at::Tensor"}},
                    {{"name", "device"}, {"type", "torch::Device"}}},
                   json::array(), {{{"name", "y"}, {"type", "at::Tensor"}}});
  HarnessEntry Entry{3, bindSnippet(Code, C), Code, "/src/my \"train\".cpp"};
  std::string TU = generateHarness({Entry, Entry});
  CHECK(has(TU, "// finding 3"));
  CHECK(has(TU, "namespace ltt_entry_1 {"));
  // Errors in the snippet point at the user's file and line.
  CHECK(has(
      TU, "#line 7 \"/src/my \\\"train\\\".cpp\"\n  auto y = x.to(device);\n"));
  CHECK(has(TU, "  auto y = x;\n"));
  CHECK(has(TU, "ltt_run.capture(\"y\", y);"));
  CHECK(has(TU, "ltt_state.add(\"x\", x);"));
  CHECK(!has(TU, "ltt_state.add(\"y\", y);"));
  CHECK(has(TU, "ltt::harnessMain(argc, argv, LttEntries, 2)"));
  // The #line back to the harness names the harness's own next line.
  size_t At = TU.find("#line ", TU.find("auto y = x.to(device);"));
  int Line = std::atoi(TU.c_str() + At + 6);
  int Actual = 1;
  for (size_t I = 0; I < At; ++I)
    Actual += TU[I] == '\n';
  CHECK(Line == Actual + 1);
}

static void testLocate(const fs::path &Tmp) {
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
  CHECK(T && T->From == "--torch-dir" && !T->Cuda);
  CHECK(T && T->CxxAbi == "0");
  CHECK(T && T->LibDir == fs::canonical(Tmp / "a/lib").string());
  CHECK(T && T->IncludeDirs.size() == 2 &&
        has(T->IncludeDirs[1], "include/torch/csrc/api/include"));
  // A --torch-dir without LibTorch is not silently replaced by another.
  Tried.clear();
  CHECK(!locateTorch((Tmp / "emptyusr").string(), Tried));
  CHECK(Tried.size() == 1 && has(Tried[0], "--torch-dir"));
  // Then Torch_DIR, then CMAKE_PREFIX_PATH.
  T = locateTorch("", Tried);
  CHECK(T && T->From == "Torch_DIR" && T->Cuda);
  ::unsetenv("Torch_DIR");
  ::setenv("CMAKE_PREFIX_PATH", ("/nowhere:" + (Tmp / "a").string()).c_str(),
           1);
  T = locateTorch("", Tried);
  CHECK(T && T->From == "CMAKE_PREFIX_PATH");
  ::unsetenv("CMAKE_PREFIX_PATH");
  // Then Python's torch package: a fake python that prints the prefix.
  touch(Tmp / "python",
        "#!/bin/sh\necho " + (Tmp / "b/share/cmake").string() + "\n");
  fs::permissions(Tmp / "python", fs::perms::owner_all);
  ::setenv("LIBTORCH_TIDY_PYTHON", (Tmp / "python").c_str(), 1);
  T = locateTorch("", Tried);
  CHECK(T && T->From == "Python torch package" && T->Cuda);
  // Then Debian's; nothing anywhere: the list of what was tried.
  ::setenv("LIBTORCH_TIDY_PYTHON", "/nonexistent-python", 1);
  fakeTorch(Tmp / "usr", false);
  fs::create_directories(Tmp / "usr/lib/x86_64-linux-gnu/cmake");
  fs::rename(Tmp / "usr/share/cmake/Torch",
             Tmp / "usr/lib/x86_64-linux-gnu/cmake/Torch");
  ::setenv("LIBTORCH_TIDY_SYSTEM_PREFIX", (Tmp / "usr").c_str(), 1);
  T = locateTorch("", Tried);
  CHECK(T && T->From == "Debian libtorch-dev");
  ::setenv("LIBTORCH_TIDY_SYSTEM_PREFIX", (Tmp / "emptyusr").c_str(), 1);
  Tried.clear();
  CHECK(!locateTorch("", Tried));
  CHECK(Tried.size() == 2 && has(Tried[0], "no torch package") &&
        has(Tried[1], "Debian libtorch-dev"));
}

static void testProcess() {
  ProcessResult R = runProcess({"sh", "-c", "echo out; echo err >&2; exit 7"},
                               "", Limits{10, 0});
  CHECK(R.Started && R.ExitCode == 7 && !R.TimedOut);
  CHECK(has(R.Output, "out") && has(R.Output, "err"));
  // A hang is killed at the limit, with what it started.
  R = runProcess({"sh", "-c", "sleep 30 & sleep 30"}, "", Limits{0.5, 0});
  CHECK(R.TimedOut && R.Seconds < 5);
  // A crash is reported by its signal.
  R = runProcess({"sh", "-c", "kill -SEGV $$"}, "", Limits{10, 0});
  CHECK(R.Signal == 11);
  // The memory limit holds.
  R = runProcess({"sh", "-c",
                  "x=$(head -c 200000000 /dev/zero | tr '\\0' a); "
                  "echo ${#x}"},
                 "", Limits{30, 64});
  CHECK(R.ExitCode != 0 || !has(R.Output, "200000000"));
  R = runProcess({"/nonexistent-binary"}, "", Limits{10, 0});
  CHECK(R.ExitCode == 127);
  // The temporary directory goes, with its contents.
  std::string Path;
  {
    TempDir D;
    CHECK(D.ok());
    Path = D.path();
    touch(fs::path(Path) / "sub/file", "x");
    CHECK(liveTempDir() && Path == liveTempDir());
  }
  CHECK(!fs::exists(Path));
}

int main() {
  TempDir Tmp;
  testOptions();
  testBinding();
  testGenerate();
  testLocate(Tmp.path());
  testProcess();
  if (Failures)
    std::fprintf(stderr, "%d check(s) failed\n", Failures);
  else
    std::printf("all harness checks passed\n");
  return Failures ? 1 : 0;
}
