// RUN: %check_torch_tidy %s torch-debug-api-enabled %t -- -- %torch_mock_2 -I%S/Inputs/gtest

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdlib>

using namespace torch::autograd;
using namespace torch::profiler::impl;
namespace profiler = torch::autograd::profiler;

void train(torch::nn::Linear &Model, torch::optim::SGD &Opt, int Epochs) {
  for (int E = 0; E < Epochs; ++E) {
    auto Loss = Model->forward(torch::randn({4, 8})).sum();
    Opt.zero_grad();
    Loss.backward();
    Opt.step();
  }
}

// --- Positive ---------------------------------------------------------------

void anomalyBeforeTraining(torch::nn::Linear &Model, torch::optim::SGD &Opt) {
  AnomalyMode::set_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: anomaly detection switched on here stays on for the training loop: every backward() then records a stack trace for each autograd node and checks each gradient for NaN, which slows training several times on CPU and GPU; keep it to debug builds [torch-debug-api-enabled]
  // CHECK-MESSAGES: :[[@LINE-13]]:{{[0-9]+}}: note: training loop here
  // CHECK-FIXES: {{^}}#ifndef NDEBUG{{$}}
  // CHECK-FIXES-NEXT: {{^}}  AnomalyMode::set_enabled(true);{{$}}
  // CHECK-FIXES-NEXT: {{^}}#endif{{$}}
  train(Model, Opt, 10);
}

void anomalyInLoop(torch::nn::Linear &Model, torch::optim::SGD &Opt) {
  const bool Check = true;
  for (int E = 0; E < 3; ++E) {
    torch::autograd::AnomalyMode::set_enabled(Check, /*check_nan=*/false); // debugging
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: anomaly detection switched on here stays on for the training loop: every backward()
    // CHECK-MESSAGES: :[[@LINE-3]]:{{[0-9]+}}: note: training loop here
    // CHECK-FIXES: {{^}}#ifndef NDEBUG{{$}}
    // CHECK-FIXES-NEXT: {{^}}    torch::autograd::AnomalyMode::set_enabled(Check, /*check_nan=*/false); // debugging{{$}}
    // CHECK-FIXES-NEXT: {{^}}#endif{{$}}
    train(Model, Opt, 1);
  }
}

void anomalyWithoutLoop() {
  AnomalyMode::set_enabled(1 + 1 == 2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: anomaly detection switched on here stays on for every later backward() of the program: every backward()
  // CHECK-FIXES: {{^}}#ifndef NDEBUG{{$}}
  // CHECK-FIXES-NEXT: {{^}}  AnomalyMode::set_enabled(1 + 1 == 2);{{$}}
  // CHECK-FIXES-NEXT: {{^}}#endif{{$}}
}

void anomalySharesItsLine(bool Flag) {
  AnomalyMode::set_enabled(true); (void)Flag;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: anomaly detection switched on here stays on for every later backward() of the program
}

void guardAroundLoop(torch::nn::Linear &Model, torch::optim::SGD &Opt) {
  DetectAnomalyGuard Guard;
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'Guard' keeps anomaly detection on around the training loop: every backward() then records a stack trace for each autograd node and checks each gradient for NaN, which slows training several times on CPU and GPU; keep it to debug builds [torch-debug-api-enabled]
  // CHECK-MESSAGES: :[[@LINE+4]]:{{[0-9]+}}: note: training loop here
  // CHECK-FIXES: {{^}}#ifndef NDEBUG{{$}}
  // CHECK-FIXES-NEXT: {{^}}  DetectAnomalyGuard Guard;{{$}}
  // CHECK-FIXES-NEXT: {{^}}#endif{{$}}
  for (int I = 0; I < 10; ++I) {
    auto Loss = Model->forward(torch::randn({4, 8})).sum();
    Loss.backward();
  }
}

void guardInLoop(torch::nn::Linear &Model, torch::optim::SGD &Opt) {
  while (true) {
    torch::autograd::DetectAnomalyGuard Guard(/*check_nan=*/false);
    // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'Guard' keeps anomaly detection on around the training loop
    // CHECK-MESSAGES: :[[@LINE-3]]:{{[0-9]+}}: note: training loop here
    // CHECK-FIXES: {{^}}#ifndef NDEBUG{{$}}
    // CHECK-FIXES-NEXT: {{^}}    torch::autograd::DetectAnomalyGuard Guard(/*check_nan=*/false);{{$}}
    // CHECK-FIXES-NEXT: {{^}}#endif{{$}}
    Opt.step();
  }
}

void profilersAroundTraining(torch::nn::Linear &Model, torch::optim::SGD &Opt) {
  profiler::RecordProfile Prof("trace.json");
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: legacy profiler 'Prof' records every operator of the training loop and keeps the events until it is destroyed; profile a few iterations instead [torch-debug-api-enabled]
  // CHECK-MESSAGES: :[[@LINE-74]]:{{[0-9]+}}: note: training loop here
  profiler::enableProfiler(ProfilerConfig(ProfilerState::KINETO),
                           {ActivityType::CPU});
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: profiler enabled here stays on through the training loop with no disableProfiler() before the loop ends: every operator of every iteration is recorded and kept in memory; profile a few iterations instead [torch-debug-api-enabled]
  // CHECK-MESSAGES: :[[@LINE-78]]:{{[0-9]+}}: note: training loop here
  train(Model, Opt, 10);
  profiler::disableProfiler()->save("trace.json");
}

void deterministic() {
  at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: remark: deterministic algorithms are switched on for the whole program: some operators run slower kernels, or throw where only a nondeterministic one exists; keep it only where reproducible results are needed [torch-debug-api-enabled]
}

// --- Negative ---------------------------------------------------------------

struct Args {
  bool Debug = false;
};

void runtimeFlags(torch::nn::Linear &Model, torch::optim::SGD &Opt,
                  const Args &A) {
  if (A.Debug)
    AnomalyMode::set_enabled(true);
  if (std::getenv("DETECT_ANOMALY")) {
    DetectAnomalyGuard Guard;
    train(Model, Opt, 10);
  }
  AnomalyMode::set_enabled(A.Debug);
  A.Debug ? AnomalyMode::set_enabled(true) : void();
  bool Profile = A.Debug;
  (void)(Profile && (profiler::enableProfiler(
                         ProfilerConfig(ProfilerState::KINETO), {}),
                     true));
  train(Model, Opt, 10);
}

void debugBuilds(torch::nn::Linear &Model, torch::optim::SGD &Opt) {
#ifndef NDEBUG
  AnomalyMode::set_enabled(true);
#endif
#if !defined(NDEBUG)
  DetectAnomalyGuard G1;
#endif
#ifdef NDEBUG
  Opt.zero_grad();
#else
  DetectAnomalyGuard G2;
#endif
#ifdef DEBUG_TRAINING
  DetectAnomalyGuard G3;
#endif
  train(Model, Opt, 10);
}

void switchedOffAgain(torch::nn::Linear &Model, torch::optim::SGD &Opt) {
  AnomalyMode::set_enabled(true);
  AnomalyMode::set_enabled(false);
  train(Model, Opt, 10);
  // AnomalyMode::set_enabled(true);
  AnomalyMode::set_enabled(false);
}

void profileFirstEpoch(torch::nn::Linear &Model, torch::optim::SGD &Opt) {
  profiler::enableProfiler(ProfilerConfig(ProfilerState::KINETO), {});
  for (int E = 0; E < 3; ++E) {
    train(Model, Opt, 1);
    if (E == 0)
      profiler::disableProfiler();
  }
}

void guardWithoutTraining(torch::nn::Linear &Model) {
  DetectAnomalyGuard Guard;
  profiler::RecordProfile Prof("inference.json");
  for (int I = 0; I < 10; ++I)
    Model->forward(torch::randn({4, 8}));
}

void notDeterministic() {
  at::globalContext().setDeterministicAlgorithms(false, false);
}

TEST(Training, DetectsNaN) {
  DetectAnomalyGuard Guard;
  AnomalyMode::set_enabled(true);
  torch::nn::Linear Model(8, 1);
  torch::optim::SGD Opt(Model->parameters(), 0.1);
  train(Model, Opt, 1);
}
