// RUN: %check_torch_tidy %s torch-missing-no-grad %t -- -- %torch_mock_1_13

#include <torch/script.h>
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct NetImpl : torch::nn::Module {
  torch::nn::Linear Fc{nullptr};
  at::Tensor forward(const at::Tensor &X) { return Fc(X); }
};
TORCH_MODULE(Net);

// A module that turns autograd off in its own forward().
struct FrozenImpl : torch::nn::Module {
  torch::nn::Linear Fc{nullptr};
  at::Tensor forward(const at::Tensor &X) {
    torch::NoGradGuard NoGrad;
    return Fc(X);
  }
};
TORCH_MODULE(Frozen);

struct Batch {
  at::Tensor data, target;
};

// --- Positive ---------------------------------------------------------------

float evaluate(Net &Model, const std::vector<at::Tensor> &Inputs) {
  float Sum = 0;
  for (const auto &X : Inputs)
    Sum += Model->forward(X).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: forward pass in evaluation function 'evaluate' runs with autograd on: it records the graph and keeps activations for a backward() that never comes; turn autograd off with 'torch::NoGradGuard' ('c10::InferenceMode' is faster where the outputs never enter autograd later) [torch-missing-no-grad]
  return Sum;
}
// CHECK-FIXES: {{^}}float evaluate(Net &Model, const std::vector<at::Tensor> &Inputs) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}
// CHECK-FIXES-NEXT: {{^}}  float Sum = 0;{{$}}

at::Tensor predictLabels(Net &Model, const at::Tensor &X) {
  return Model(X).argmax(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass in evaluation function 'predictLabels' runs with autograd on
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  return Model(X).argmax(1);{{$}}
}
// Its caller only prints what it returns.
void printLabels(Net &Model, const at::Tensor &X) {
  std::cout << predictLabels(Model, X) << "\n";
}

void afterEval(Net &Model, const at::Tensor &X) {
  Model->eval();
  auto Y = Model(X);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: forward pass after eval() runs with autograd on
  // CHECK-MESSAGES: :[[@LINE-3]]:10: note: evaluation mode set here
  auto Z = Model->forward(Y);
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: forward pass after eval() runs with autograd on
  // CHECK-MESSAGES: :[[@LINE-6]]:10: note: evaluation mode set here
}
// CHECK-FIXES: {{^}}void afterEval(Net &Model, const at::Tensor &X) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}
// CHECK-FIXES-NEXT: {{^}}  Model->eval();{{$}}

// Training, then evaluation in the same function: the guard goes into the
// evaluation loop's body, where it cannot reach the training.
void trainThenTest(Net &Model, torch::optim::SGD &Opt,
                   std::vector<Batch> &TrainSet, std::vector<Batch> &TestSet) {
  for (int Epoch = 0; Epoch < 3; ++Epoch) {
    Model->train();
    for (auto &B : TrainSet) {
      auto Loss = torch::mse_loss(Model->forward(B.data), B.target);
      Opt.zero_grad();
      Loss.backward();
      Opt.step();
    }
    Model->eval();
    for (auto &B : TestSet) {
      auto Out = Model->forward(B.data);
      // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: forward pass after eval() runs with autograd on
      // CHECK-MESSAGES: :[[@LINE-4]]:12: note: evaluation mode set here
      // CHECK-FIXES: {{^}}    for (auto &B : TestSet) {{{$}}
      // CHECK-FIXES-NEXT: {{^}}      torch::NoGradGuard no_grad;{{$}}
      // CHECK-FIXES-NEXT: {{^}}      auto Out = Model->forward(B.data);{{$}}
    }
  }
}

// A loop over a test loader, in a function that also trains (no eval()).
void trainAndValidate(Net &Model, torch::optim::SGD &Opt,
                      std::vector<Batch> &Train, std::vector<Batch> &ValLoader) {
  for (auto &B : Train) {
    auto Loss = torch::mse_loss(Model(B.data), B.target);
    Loss.backward();
    Opt.step();
  }
  float Total = 0;
  for (auto &B : ValLoader) {
    Total += torch::mse_loss(Model(B.data), B.target).item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: forward pass in the loop over 'ValLoader' runs with autograd on
    // CHECK-FIXES: {{^}}  for (auto &B : ValLoader) {{{$}}
    // CHECK-FIXES-NEXT: {{^}}    torch::NoGradGuard no_grad;{{$}}
  }
}

// A TorchScript module in inference.
int runScripted(const std::string &Path) {
  torch::jit::script::Module M = torch::jit::load(Path);
  M.eval();
  auto Out = M.forward({torch::randn({1, 3})}).toTensor();
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: forward pass after eval() runs with autograd on
  // CHECK-MESSAGES: :[[@LINE-3]]:5: note: evaluation mode set here
  // CHECK-FIXES: {{^}}int runScripted(const std::string &Path) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}
  return Out.dim();
}

// A guard that does not turn autograd off.
at::Tensor inferWithGrad(Net &Model, const at::Tensor &X) {
  torch::AutoGradMode EnableGrad(true);
  return Model(X);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass in evaluation function 'inferWithGrad' runs with autograd on
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  torch::AutoGradMode EnableGrad(true);{{$}}
}
int64_t callsInferWithGrad(Net &Model, const at::Tensor &X) {
  return inferWithGrad(Model, X).softmax(1).size(0);
}

// A called function whose callers are not all guarded.
at::Tensor testStep(Net &Model, const at::Tensor &X) {
  return Model(X);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass in evaluation function 'testStep' runs with autograd on
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
}
void callsTestStep(Net &Model, const at::Tensor &X) {
  {
    torch::NoGradGuard NoGrad;
    testStep(Model, X);
  }
  testStep(Model, X);
}

// Trained weights loaded into the module, which runs once and keeps no graph
// for a caller: inference, whatever the function's name.
void loadAndRun(Net &Model, const at::Tensor &X) {
  torch::load(Model, "weights.pt");
  auto Out = Model(X);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: forward pass of a module whose trained weights are loaded runs with autograd on
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: weights loaded here; nothing in 'loadAndRun' needs gradients
  // CHECK-FIXES: {{^}}void loadAndRun(Net &Model, const at::Tensor &X) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}
  torch::save(Out, "out.pt");
}

// A TorchScript module assigned from torch::jit::load().
void classify(const std::string &Path, const at::Tensor &Image) {
  torch::jit::script::Module M;
  M = torch::jit::load(Path);
  auto Out = M.forward({Image}).toTensor();
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: forward pass of a module whose trained weights are loaded runs with autograd on
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: weights loaded here; nothing in 'classify' needs gradients
  torch::save(Out, "out.pt");
}

// A checkpoint helper of the project's, built over the model.
class Snapshot {
public:
  explicit Snapshot(NetImpl *Model);
  void Load(const std::string &Path);
};
void encodeDecode(std::shared_ptr<NetImpl> M, const at::Tensor &X) {
  Snapshot S(M.get());
  S.Load("weights.bin");
  auto Y = M->forward(X);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: forward pass of a module whose trained weights are loaded runs with autograd on
  // CHECK-MESSAGES: :[[@LINE-3]]:5: note: weights loaded here; nothing in 'encodeDecode' needs gradients
  torch::save(Y, "y.pt");
}

// A parameter, and a global the function reads, take the guard's name.
bool no_grad_guard = false;
float evaluateFlags(Net &Model, const std::vector<at::Tensor> &Inputs,
                    bool no_grad) {
  float Sum = 0;
  for (const auto &X : Inputs)
    Sum += Model->forward(X).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: forward pass in evaluation function 'evaluateFlags' runs with autograd on
  return no_grad || no_grad_guard ? Sum : -Sum;
}
// CHECK-FIXES: {{^}}                    bool no_grad) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad_guard_;{{$}}
// CHECK-FIXES-NEXT: {{^}}  float Sum = 0;{{$}}

// eval() in a block that ends before the forward pass: the guard goes into
// the block that holds both, after the statement that calls eval().
void trainThenCheck(Net &Model, torch::optim::SGD &Opt, const at::Tensor &X,
                    bool Verbose) {
  auto Loss = Model->forward(X).sum();
  Loss.backward();
  Opt.step();
  if (Verbose) {
    Model->eval();
  }
  auto Y = Model->forward(X);
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: forward pass after eval() runs with autograd on
  // CHECK-MESSAGES: :[[@LINE-4]]:12: note: evaluation mode set here
  torch::save(Y, "y.pt");
}
// CHECK-FIXES: {{^}}    Model->eval();{{$}}
// CHECK-FIXES-NEXT: {{^}}  }{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}
// CHECK-FIXES-NEXT: {{^}}  auto Y = Model->forward(X);{{$}}

// eval() and the forward pass in the two branches of one statement: no block
// around the call starts after eval().
void evalOrRun(Net &Model, torch::optim::SGD &Opt, const at::Tensor &X,
               bool Check) {
  auto Loss = Model->forward(X).sum();
  Loss.backward();
  Opt.step();
  if (Check) {
    Model->eval();
  } else {
    auto Y = Model->forward(X);
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: forward pass after eval() runs with autograd on
    // CHECK-MESSAGES: :[[@LINE-4]]:12: note: evaluation mode set here
    // CHECK-MESSAGES: :[[@LINE-3]]:21: note: no guard is inserted: no block around the call starts after eval()
    torch::save(Y, "y.pt");
  }
}

// The forward pass in a loop's condition: a guard in the loop's body would
// not cover it.
void trainThenSearch(Net &Model, torch::optim::SGD &Opt, const at::Tensor &X) {
  auto Loss = Model->forward(X).sum();
  Loss.backward();
  Opt.step();
  Model->eval();
  int Steps = 0;
  while (Model->forward(X).sum().item<float>() > Steps) {
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: forward pass after eval() runs with autograd on
    // CHECK-MESSAGES: :[[@LINE-4]]:10: note: evaluation mode set here
    // CHECK-MESSAGES: :[[@LINE-3]]:17: note: no guard is inserted: the block the guard would go into does not hold the call
    ++Steps;
  }
}

// --- Negative ---------------------------------------------------------------

// A function that returns tensors hands their graph to its callers: here
// the caller trains with them (PPO's evaluate_actions gives the loss its
// log-probs), so the name does not make it evaluation.
std::vector<at::Tensor> evaluateActions(Net &Model, const at::Tensor &X) {
  auto Out = Model->forward(X);
  return {Out.log_softmax(1), Out.mean()};
}
void ppoUpdate(Net &Model, const at::Tensor &X, torch::optim::SGD &Opt) {
  std::vector<at::Tensor> Eval = evaluateActions(Model, X);
  (Eval[0].mean() + Eval[1]).backward();
  Opt.step();
}

// No caller in view: the callers elsewhere decide.
at::Tensor evaluateValues(Net &Model, const at::Tensor &X) {
  return Model(X);
}

at::Tensor guardedPredict(Net &Model, const at::Tensor &X) {
  torch::NoGradGuard NoGrad;
  Model->eval();
  return Model(X);
}

at::Tensor inferenceModePredict(Net &Model, const at::Tensor &X) {
  c10::InferenceMode Guard;
  return Model(X);
}

at::Tensor autoGradModePredict(Net &Model, const at::Tensor &X) {
  torch::AutoGradMode Off(false);
  return Model(X);
}

at::Tensor gradModePredict(Net &Model, const at::Tensor &X) {
  torch::autograd::GradMode::set_enabled(false);
  return Model(X);
}

void guardInOuterBlock(Net &Model, std::vector<Batch> &TestLoader) {
  torch::NoGradGuard NoGrad;
  for (auto &B : TestLoader) {
    auto Out = Model(B.data);
  }
}

// Every caller guards.
at::Tensor evalForward(Net &Model, const at::Tensor &X) { return Model(X); }
void guardedCaller(Net &Model, const at::Tensor &X) {
  torch::NoGradGuard NoGrad;
  evalForward(Model, X);
}

// The module's forward() guards itself.
at::Tensor predictFrozen(Frozen &Model, const at::Tensor &X) {
  return Model(X);
}

// Training code.
void train(Net &Model, torch::optim::SGD &Opt, std::vector<Batch> &Data) {
  Model->train();
  for (auto &B : Data) {
    auto Loss = torch::mse_loss(Model->forward(B.data), B.target);
    Loss.backward();
    Opt.step();
  }
}

// eval() for a BatchNorm's statistics, but the gradients are used.
void evalModeTraining(Net &Model, torch::optim::SGD &Opt, const at::Tensor &X) {
  Model->eval();
  auto Loss = Model(X).sum();
  Loss.backward();
  Opt.step();
}

// Gradients with respect to the inputs (physics-informed losses, saliency).
at::Tensor testSaliency(Net &Model, at::Tensor X) {
  X.requires_grad_(true);
  auto Y = Model(X).sum();
  return torch::autograd::grad({Y}, {X})[0];
}

// train() again after eval().
void backToTraining(Net &Model, const at::Tensor &X) {
  Model->eval();
  Model->train();
  auto Y = Model(X);
}

// Weights loaded, then trained (fine-tuning): gradients are needed.
void fineTune(Net &Model, torch::optim::SGD &Opt, const at::Tensor &X) {
  torch::load(Model, "pretrained.pt");
  auto Loss = Model(X).sum();
  Loss.backward();
  Opt.step();
}

// Weights loaded, and the output returned: the caller may backpropagate.
at::Tensor loadedFeatures(Net &Model, const at::Tensor &X) {
  torch::load(Model, "pretrained.pt");
  return Model(X);
}

// Something else loaded (an image), not the module's weights.
at::Tensor loadImage(const std::string &Path);
void runOnLoadedImage(Net &Model, std::vector<at::Tensor> &Outs) {
  auto Image = loadImage("cat.png");
  auto Out = Model(Image);
  Outs.push_back(Out);
}

// A loss module: its graph exists only when the logits carry one, which
// the model's forward pass reports where it runs.
struct FocalLossImpl : torch::nn::Module {
  at::Tensor forward(const at::Tensor &Logits, const at::Tensor &Target) {
    return Logits - Target;
  }
};
TORCH_MODULE(FocalLoss);
at::Tensor evalStep(FocalLoss &Loss, const at::Tensor &Logits,
                    const at::Tensor &Target) {
  return Loss(Logits, Target);
}

// Not evaluation by any sign.
at::Tensor embed(Net &Model, const at::Tensor &X) { return Model(X); }

// Submodules inside a module's forward() run in the caller's mode.
struct WrapperImpl : torch::nn::Module {
  Net Inner{nullptr};
  at::Tensor forward(const at::Tensor &X) {
    eval();
    return Inner(X);
  }
};

// --- An output only the host reads -----------------------------------------
// Whatever the function is called: printed, its sizes or values read, saved
// or detached, the output never uses the graph recorded for it.

void demoForward(Net &Model, const at::Tensor &Batch) {
  auto Logits = Model->forward(Batch);
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: forward pass whose output only the host reads runs with autograd on: it records the graph and keeps activations for a backward() that never comes; turn autograd off with 'torch::NoGradGuard' ('c10::InferenceMode' is faster where the outputs never enter autograd later) [torch-missing-no-grad]
  std::cout << "shape " << Logits.size(0) << "\n";
  for (int64_t B = 0; B < 2; ++B)
    std::cout << Logits[B].argmax(0) << "\n";
}
// CHECK-FIXES: {{^}}void demoForward(Net &Model, const at::Tensor &Batch) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}

void savePreview(Net &Model, const at::Tensor &Noise) {
  at::Tensor Sample = Model(Noise).detach();
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: forward pass whose output is only detached or read on the host runs with autograd on
  torch::save(Sample, "preview.pt");
}

// Sampling: the graph ends at the sampled ids (integers, which autograd
// never records), whatever the loop then does with them; so does an argmax.
at::Tensor sampleTokens(Net &Model, at::Tensor Context) {
  for (int64_t Step = 0; Step < 100; ++Step) {
    at::Tensor Probs = Model->forward(Context).softmax(-1);
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: forward pass whose output only the host reads runs with autograd on
    at::Tensor Next = torch::multinomial(Probs, 1);
    Context = torch::cat({Context, Next}, 1);
  }
  return Context;
}
// CHECK-FIXES: {{^}}at::Tensor sampleTokens(Net &Model, at::Tensor Context) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}

std::vector<at::Tensor> greedyActions(Net &Model,
                                      const std::vector<at::Tensor> &States) {
  std::vector<at::Tensor> Actions;
  for (const auto &S : States)
    Actions.push_back(Model(S).argmax(1));
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: forward pass whose output only the host reads runs with autograd on
  return Actions;
}
// CHECK-FIXES: {{^}}                                      const std::vector<at::Tensor> &States) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}

// Silent: the probabilities themselves are kept for the caller's loss.
std::vector<at::Tensor> sampledWithProbs(Net &Model, const at::Tensor &S,
                                         std::vector<at::Tensor> &Kept) {
  at::Tensor Probs = Model->forward(S).softmax(-1);
  Kept.push_back(Probs);
  return {torch::multinomial(Probs, 1)};
}

// The output reaches the project's own code, a backward() or a caller, or
// nothing reads it: silent.
float lossOf(const at::Tensor &Out);
void handsItOn(Net &Model, const at::Tensor &X) {
  auto Out = Model(X);
  std::cout << Out.size(0);
  std::cout << lossOf(Out);
}

void backwardLater(Net &Model, const at::Tensor &X) {
  auto Out = Model(X);
  std::cout << Out.size(0);
  Out.sum().backward();
}

void discarded(Net &Model, const at::Tensor &X) { Model(X); }

at::Tensor printedAndReturned(Net &Model, const at::Tensor &X) {
  auto Out = Model(X);
  std::cout << Out.size(0);
  return Out;
}

// A shape probe: a forward on a made-up input, outside any loop, whose
// output only tells a size (what a Linear layer after the convolutions
// takes); its graph goes with the output at once.
int64_t convOutputSize(Net &Model) {
  at::Tensor Probe = Model->forward(torch::zeros({1, 3, 32, 32}));
  return Probe.numel();
}

// Its size printed, the same pass is a demonstration, not a probe.
void showOutputSize(Net &Model) {
  at::Tensor Shown = Model->forward(torch::zeros({1, 3, 32, 32}));
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: forward pass whose output only the host reads runs with autograd on
  std::cout << "output " << Shown.size(1) << "\n";
}
// CHECK-FIXES: {{^}}void showOutputSize(Net &Model) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}

// A forward followed by an explicit device synchronize is a benchmark's
// warm-up or timed run: it measures the forward as written.
void warmUp(Net &Model, const at::Tensor &X) {
  auto Out = Model(X);
  Out.sum().item<float>();
  torch::cuda::synchronize();
}

// A checkpoint inside the training loop: the sample pass's block trains
// nothing and only saves the samples, so the guard opens that block (the
// loop around it trains, and keeps autograd).
void trainWithSamples(Net &Gen, torch::optim::SGD &Opt, const at::Tensor &X,
                      const at::Tensor &Noise) {
  for (int64_t Step = 0; Step < 1000; ++Step) {
    Gen(X).sum().backward();
    Opt.step();
    if (Step % 100 == 0) {
      torch::save(Gen, "generator.pt");
      at::Tensor Samples = Gen->forward(Noise);
      // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: forward pass whose output only the host reads runs with autograd on
      torch::save(Samples, "samples.pt");
    }
  }
}
// CHECK-FIXES: {{^}}    if (Step % 100 == 0) {{{$}}
// CHECK-FIXES-NEXT: {{^}}      torch::NoGradGuard no_grad;{{$}}
// CHECK-FIXES-NEXT: {{^}}      torch::save(Gen, "generator.pt");{{$}}

// The same after restoring a checkpoint: the loaded weights train on, and
// the sample pass is still the one to guard.
void resumeWithSamples(Net &Gen, torch::optim::SGD &Opt, const at::Tensor &X,
                       bool Resume) {
  if (Resume)
    torch::load(Gen, "generator.pt");
  for (int64_t Step = 0; Step < 1000; ++Step) {
    Gen(X).sum().backward();
    Opt.step();
    if (Step % 100 == 0) {
      auto Samples = Gen->forward(X);
      // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: forward pass whose output only the host reads runs with autograd on
      torch::save(Samples, "samples.pt");
    }
  }
}
// CHECK-FIXES: {{^}}    if (Step % 100 == 0) {{{$}}
// CHECK-FIXES-NEXT: {{^}}      torch::NoGradGuard no_grad;{{$}}
// CHECK-FIXES-NEXT: {{^}}      auto Samples = Gen->forward(X);{{$}}

// The block also steps the optimizer: a guard for the block would turn
// autograd off for the step, so the guard goes into a lambda around the
// pass's expression alone.
void sampleAndStep(Net &Gen, torch::optim::SGD &Opt, const at::Tensor &X) {
  for (int64_t Step = 0; Step < 1000; ++Step) {
    if (Step % 100 == 0) {
      at::Tensor Samples = Gen->forward(X);
      // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: forward pass whose output only the host reads runs with autograd on: it records the graph and keeps activations for a backward() that never comes; turn autograd off for this expression alone with a 'torch::NoGradGuard' in a lambda (the step around it needs gradients) [torch-missing-no-grad]
      torch::save(Samples, "samples.pt");
      Opt.step();
    }
  }
}
// CHECK-FIXES: {{^}}      at::Tensor Samples = [&] { torch::NoGradGuard no_grad; return Gen->forward(X); }();{{$}}

// Silent: the output leaves the block for a backward().
void keptForLater(Net &Gen, torch::optim::SGD &Opt, const at::Tensor &X) {
  for (int64_t Step = 0; Step < 1000; ++Step) {
    at::Tensor Kept;
    if (Step % 2 == 0) {
      Kept = Gen->forward(X);
      std::cout << Kept.size(0);
    }
    Kept.sum().backward();
    Opt.step();
  }
}

// A pass of the training step whose output is only printed.
void printedInTheStep(Net &Gen, torch::optim::SGD &Opt, const at::Tensor &X) {
  for (int64_t Step = 0; Step < 1000; ++Step) {
    at::Tensor Shown = Gen->forward(X);
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: forward pass whose output only the host reads runs with autograd on
    std::cout << Shown.size(0);
    Gen(X).sum().backward();
    Opt.step();
  }
}
// CHECK-FIXES: {{^}}    at::Tensor Shown = [&] { torch::NoGradGuard no_grad; return Gen->forward(X); }();{{$}}

// A DQN's target network in the training step: its Q-values are detached
// into the regression target, so its graph is recorded for nothing; the
// online network's pass feeds the loss and keeps autograd.
void learnFromTarget(Net &Online, Net &Target, torch::optim::SGD &Opt,
                     const std::vector<Batch> &Replay,
                     const at::Tensor &Reward) {
  for (const Batch &B : Replay) {
    auto Q = Online->forward(B.data);
    auto NextQ = Target->forward(B.target);
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: forward pass whose output is only detached or read on the host runs with autograd on: it records the graph and keeps activations for a backward() that never comes; turn autograd off for this expression alone with a 'torch::NoGradGuard' in a lambda (the step around it needs gradients) [torch-missing-no-grad]
    at::Tensor Best = std::get<0>(NextQ.max(1)).detach();
    (Q - (Reward + Best)).square().mean().backward();
    Opt.step();
  }
}
// CHECK-FIXES: {{^}}    auto Q = Online->forward(B.data);{{$}}
// CHECK-FIXES-NEXT: {{^}}    auto NextQ = [&] { torch::NoGradGuard no_grad; return Target->forward(B.target); }();{{$}}

// The same written in one expression: the guard covers what detach() ends,
// and the two passes of the double-DQN target share it.
void learnInline(Net &Online, Net &Target, torch::optim::SGD &Opt,
                 const Batch &B, const at::Tensor &Reward) {
  for (int64_t Step = 0; Step < 100; ++Step) {
    at::Tensor Goal =
        Reward + std::get<0>(Target(B.target).max(1)).detach();
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: forward pass whose output is only detached or read on the host
    at::Tensor Double =
        (Target(B.target) + Online->forward(B.target)).detach();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass whose output is only detached or read on the host
    // CHECK-MESSAGES: :[[@LINE-2]]:37: warning: forward pass whose output is only detached or read on the host
    (Online(B.data) - Goal - Double).square().mean().backward();
    Opt.step();
  }
}
// CHECK-FIXES: {{^}}        Reward + [&] { torch::NoGradGuard no_grad; return std::get<0>(Target(B.target).max(1)); }().detach();{{$}}
// CHECK-FIXES: {{^}}        [&] { torch::NoGradGuard no_grad; return (Target(B.target) + Online->forward(B.target)); }().detach();{{$}}

// Silent: a GAN's fake batch is detached for the discriminator's step but
// also trains the generator.
void ganStep(Net &Gen, Net &Disc, torch::optim::SGD &Opt,
             const at::Tensor &Noise) {
  for (int64_t Step = 0; Step < 100; ++Step) {
    at::Tensor Fake = Gen->forward(Noise);
    Disc(Fake.detach()).mean().backward();
    Disc(Fake).mean().backward();
    Opt.step();
  }
}

// A module held as a torch::nn::AnyModule (a DQN's type-erased online
// network): its forward() is the module's, and action selection after
// eval() reads the Q-values only on the host.
int64_t greedyAction(torch::nn::AnyModule &QNet, const at::Tensor &State) {
  QNet.ptr()->eval();
  at::Tensor Q = QNet.forward(State);
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: forward pass after eval() runs with autograd on
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: evaluation mode set here
  return Q.argmax(1).item<int64_t>();
}
// CHECK-FIXES: {{^}}int64_t greedyAction(torch::nn::AnyModule &QNet, const at::Tensor &State) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}

// The same network trained through AnyModule: silent.
void trainAny(torch::nn::AnyModule &QNet, torch::optim::SGD &Opt,
              const at::Tensor &State) {
  QNet.ptr()->train();
  QNet.forward(State).sum().backward();
  Opt.step();
}
