//===--- HarnessSupport.h - libtorch-tidy-verify ----------------*- C++ -*-===//
//
// The runtime of the generated snippet harnesses (precompiled with LibTorch's
// headers). A harness holds, for each finding, two functions that bind the
// snippet's free variables and pass the snippet to a Runner: once to compare
// what the code before and after the fix leaves behind, once to time the two
// interleaved. Results go to a small JSON file the verifier reads.
//
//   harness --entry N --mode check|time --out FILE [--time-cap S]
//           [--min-samples N] [--max-samples N] [--rtol R] [--atol A]
//
// Exit codes: 0 done, 2 bad command line, 3 the snippet threw (message on
// stderr after "ltt-exception: ").
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_HARNESS_SUPPORT_H
#define LIBTORCH_TIDY_VERIFY_HARNESS_SUPPORT_H

#include "MeasureLoop.h"
#include "Stats.h"

#include <torch/torch.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace torchtidy {

/// The device snippets run on: the machine's.
inline torch::Device device() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA)
                                     : torch::Device(torch::kCPU);
}

/// A fixture tensor of the given sizes: normal floats, or small integers
/// (class indices) for integral dtypes.
inline torch::Tensor tensor(std::vector<int64_t> Sizes,
                            torch::ScalarType Dtype = torch::kFloat) {
  auto Options = torch::TensorOptions().dtype(Dtype).device(device());
  if (c10::isFloatingType(Dtype))
    return torch::randn(Sizes, Options);
  return torch::randint(0, 2, Sizes, Options);
}

/// What a variant leaves behind: every tensor reachable from the compared
/// variables, by name, on the CPU in double precision. An undefined tensor
/// (a reset gradient) is kept as such.
class State {
public:
  template <typename T> void add(const std::string &Name, const T &V) {
    using U = std::decay_t<T>;
    if constexpr (std::is_arithmetic_v<U>) {
      Names.push_back(Name);
      put(Name, torch::tensor(static_cast<double>(V), torch::kDouble));
    } else if constexpr (std::is_convertible_v<const U &,
                                               const torch::Tensor &>)
      addTensor(Name, V);
    else if constexpr (std::is_base_of_v<torch::nn::Module, U>)
      addModule(Name, V);
    else if constexpr (std::is_base_of_v<torch::detail::ModuleHolderIndicator,
                                         U>)
      addModule(Name, *V);
    else
      Skipped.push_back(Name);
  }
  template <typename T>
  void add(const std::string &Name, const std::shared_ptr<T> &V) {
    if constexpr (std::is_base_of_v<torch::nn::Module, T>)
      addModule(Name, *V);
    else
      Skipped.push_back(Name);
  }

  std::map<std::string, torch::Tensor> Tensors;
  std::vector<std::string> Names, Skipped;

private:
  void put(const std::string &Name, torch::Tensor T) {
    Tensors[Name] = std::move(T);
  }
  void addTensor(const std::string &Name, const torch::Tensor &T) {
    Names.push_back(Name);
    putTensor(Name, T);
  }
  void putTensor(const std::string &Name, const torch::Tensor &T) {
    if (!T.defined()) {
      put(Name, torch::Tensor());
      return;
    }
    if (T.is_complex())
      return;
    put(Name, T.detach().to(torch::kCPU).to(torch::kDouble).clone());
    // Only leaves keep gradients (asking a non-leaf warns).
    if (T.is_leaf() && T.requires_grad())
      putTensor(Name + ".grad", T.grad());
  }
  void addModule(const std::string &Name, const torch::nn::Module &M) {
    Names.push_back(Name);
    for (const auto &P : M.named_parameters())
      putTensor(Name + "." + P.key(), P.value());
    for (const auto &B : M.named_buffers())
      putTensor(Name + "." + B.key(), B.value());
  }
};

struct Difference {
  bool Equal = true;
  double MaxAbs = 0, MaxRel = 0;
  std::string First; ///< the first mismatch, in words

  void mismatch(const std::string &Why) {
    if (Equal)
      First = Why;
    Equal = false;
  }
};

/// Compares the tensor \p Name of two states into \p D.
inline void compareTensor(const std::string &Name, const torch::Tensor &X,
                          const torch::Tensor &Y, double Rtol, double Atol,
                          Difference &D) {
  if (X.defined() != Y.defined()) {
    torch::Tensor Defined = X.defined() ? X : Y;
    if (Defined.numel() && Defined.abs().max().item<double>() != 0)
      D.mismatch(Name + " is " + (X.defined() ? "reset" : "set") +
                 " after the fix");
    return;
  }
  if (!X.defined())
    return;
  if (X.sizes() != Y.sizes()) {
    D.mismatch(Name + " changes shape");
    return;
  }
  if (!X.numel())
    return;
  torch::Tensor Diff = (X - Y).abs();
  double Abs = Diff.max().item<double>();
  double Rel = (Diff / Y.abs().clamp_min(1e-12)).max().item<double>();
  D.MaxAbs = std::max(D.MaxAbs, Abs);
  if (std::isfinite(Rel))
    D.MaxRel = std::max(D.MaxRel, Rel);
  bool Close =
      (Diff <= Atol + Rtol * Y.abs()).all().item<bool>() || torch::equal(X, Y);
  if (!Close)
    D.mismatch(Name + " differs by up to " + std::to_string(Abs));
}

/// Compares two states: same names, same shapes, values within
/// |a - b| <= Atol + Rtol * |b|. A reset gradient equals a zero-filled one:
/// the next backward() gives both the same values.
inline Difference compare(const State &A, const State &B, double Rtol,
                          double Atol) {
  Difference D;
  for (const auto &[Name, TA] : A.Tensors) {
    auto It = B.Tensors.find(Name);
    if (It == B.Tensors.end())
      D.mismatch(Name + " is gone after the fix");
    else
      compareTensor(Name, TA, It->second, Rtol, Atol, D);
  }
  for (const auto &[Name, TB] : B.Tensors)
    if (!A.Tensors.count(Name))
      D.mismatch(Name + " appears after the fix");
  return D;
}

/// Handed to a variant function: in check mode runs the snippet once and
/// records its state; in time mode passes the live snippet on, so that both
/// variants' fixtures are alive while they are timed interleaved.
class Runner {
public:
  explicit Runner(std::function<void(Step &)> Timed = nullptr)
      : Timed(std::move(Timed)) {}

  template <typename SnippetFn, typename CaptureFn>
  void run(SnippetFn &&Snippet, CaptureFn &&Capture) {
    if (!Timed) {
      Capturing = true;
      Snippet();
      Capturing = false;
      Capture(Result);
      return;
    }
    Step S = Snippet;
    Timed(S);
  }
  bool capturing() const { return Capturing; }
  template <typename T> void capture(const std::string &Name, const T &V) {
    Result.add(Name, V);
  }
  State Result;

private:
  std::function<void(Step &)> Timed;
  bool Capturing = false;
};

using Variant = void (*)(Runner &);
struct Entry {
  Variant Before, After;
};

struct Options {
  int Entry = -1;
  std::string Mode, Out;
  double Rtol = 1e-4, Atol = 1e-5;
  StopRule Rule;
};

inline void writeList(std::FILE *F, const char *Name,
                      const std::vector<double> &V) {
  std::fprintf(F, "\"%s\": [", Name);
  for (size_t I = 0; I < V.size(); ++I)
    std::fprintf(F, "%s%.6g", I ? ", " : "", V[I]);
  std::fprintf(F, "]");
}

inline std::string jsonString(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (static_cast<unsigned char>(C) < 0x20)
      continue;
    Out += C;
  }
  return Out + "\"";
}

/// Runs both variants once from the same seed and writes how their states
/// differ.
inline int check(const Entry &E, const Options &O) {
  Runner Before, After;
  torch::manual_seed(0);
  E.Before(Before);
  torch::manual_seed(0);
  E.After(After);
  Difference D = compare(Before.Result, After.Result, O.Rtol, O.Atol);
  std::FILE *F = std::fopen(O.Out.c_str(), "w");
  if (!F)
    return 2;
  std::fprintf(F, "{\"equal\": %s, \"max_abs\": %.6g, \"max_rel\": %.6g, ",
               D.Equal ? "true" : "false", D.MaxAbs, D.MaxRel);
  std::fprintf(F, "\"first\": %s, \"compared\": [",
               jsonString(D.First).c_str());
  for (size_t I = 0; I < Before.Result.Names.size(); ++I)
    std::fprintf(F, "%s%s", I ? ", " : "",
                 jsonString(Before.Result.Names[I]).c_str());
  std::fprintf(F, "], \"skipped\": [");
  for (size_t I = 0; I < Before.Result.Skipped.size(); ++I)
    std::fprintf(F, "%s%s", I ? ", " : "",
                 jsonString(Before.Result.Skipped[I]).c_str());
  std::fprintf(F, "]}\n");
  return std::fclose(F) == 0 ? 0 : 2;
}

/// Writes what measure() took, in the fields the verifier reads.
inline void writeTimes(std::FILE *F, const LoopResult &R) {
  std::fprintf(F, "{\"device\": \"%s\", \"runs_per_sample\": %ld, ",
               torch::cuda::is_available() ? "cuda" : "cpu", R.RunsPerSample);
  std::fprintf(F, "\"stop\": %s, ", jsonString(R.StopReason).c_str());
  writeList(F, "before_us", R.Before);
  std::fprintf(F, ", ");
  writeList(F, "after_us", R.After);
  if (!R.GpuBefore.empty() && R.GpuBefore.size() == R.GpuAfter.size()) {
    std::fprintf(F, ", ");
    writeList(F, "gpu_before_us", R.GpuBefore);
    std::fprintf(F, ", ");
    writeList(F, "gpu_after_us", R.GpuAfter);
  }
  std::fprintf(F, "}\n");
}

/// Times the two variants interleaved with the verifier's one measurement
/// loop (MeasureLoop.h, measurement.md): an untimed warm-up, runs per sample
/// grown until a sample takes about 10 ms, ABBA order, and the adaptive stop
/// of the verifier's statistics.
inline void measure(const Step &Before, const Step &After, const Options &O) {
  LoopOptions Loop;
  Loop.Rule = O.Rule;
  LoopResult R = measureInterleaved(Before, After, Loop);
  std::FILE *F = std::fopen(O.Out.c_str(), "w");
  if (!F)
    std::exit(2);
  writeTimes(F, R);
  std::fclose(F);
}

inline int time(const Entry &E, const Options &O) {
  Runner BeforeRunner([&](Step &Before) {
    Runner AfterRunner([&](Step &After) { measure(Before, After, O); });
    torch::manual_seed(0);
    E.After(AfterRunner);
  });
  torch::manual_seed(0);
  E.Before(BeforeRunner);
  return 0;
}

/// Under `unshare --pid --fork` (the verifier's sandbox without bubblewrap)
/// the harness is its PID namespace's init, which the kernel spares from
/// signals it does not handle (an abort would not end it) and which would
/// have to reap orphans: the work runs in a child, and init exits as the
/// child did, with 128 + its signal like bubblewrap's init.
inline void runBelowInit() {
  if (::getpid() != 1)
    return;
  pid_t Child = ::fork();
  if (Child == 0)
    return;
  if (Child < 0)
    std::_Exit(125);
  for (;;) {
    int Status = 0;
    pid_t Done = ::wait(&Status);
    if (Done == Child)
      std::_Exit(WIFEXITED(Status) ? WEXITSTATUS(Status)
                                   : 128 + WTERMSIG(Status));
    if (Done < 0 && errno != EINTR)
      std::_Exit(125);
  }
}

inline int harnessMain(int Argc, char **Argv, const Entry *Entries, int Count) {
  runBelowInit();
  Options O;
  for (int I = 1; I + 1 < Argc; I += 2) {
    std::string Key = Argv[I], Value = Argv[I + 1];
    if (Key == "--entry")
      O.Entry = std::atoi(Value.c_str());
    else if (Key == "--mode")
      O.Mode = Value;
    else if (Key == "--out")
      O.Out = Value;
    else if (Key == "--time-cap")
      O.Rule.TimeCapSeconds = std::atof(Value.c_str());
    else if (Key == "--min-samples")
      O.Rule.MinSamples = std::atoi(Value.c_str());
    else if (Key == "--max-samples")
      O.Rule.MaxSamples = std::atoi(Value.c_str());
    else if (Key == "--rtol")
      O.Rtol = std::atof(Value.c_str());
    else if (Key == "--atol")
      O.Atol = std::atof(Value.c_str());
  }
  if (O.Entry < 0 || O.Entry >= Count || O.Out.empty() ||
      (O.Mode != "check" && O.Mode != "time")) {
    std::fprintf(stderr, "usage: harness --entry N --mode check|time --out "
                         "FILE\n");
    return 2;
  }
  try {
    return O.Mode == "check" ? check(Entries[O.Entry], O)
                             : time(Entries[O.Entry], O);
  } catch (const std::exception &E) {
    // First line only: c10::Error appends a backtrace.
    std::string What = E.what();
    std::fprintf(stderr, "ltt-exception: %s\n",
                 What.substr(0, What.find('\n')).c_str());
    return 3;
  }
}

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_HARNESS_SUPPORT_H
