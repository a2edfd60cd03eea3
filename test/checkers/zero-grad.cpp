// RUN: %check_torch_tidy %s torch-zero-grad %t -- -- %torch_mock_1_13

// LibTorch 1.13: Optimizer::zero_grad() takes no argument and zero-fills;
// Module::zero_grad(bool set_to_none = false) zero-fills by default.
#include <torch/torch.h>

using torch::Tensor;

struct NetImpl : torch::nn::Module {
  Tensor forward(const Tensor &X);
};
using Net = torch::nn::ModuleHolder<NetImpl>;

void positiveOptimizerStatement(torch::optim::SGD &optimizer, Net &model,
                                const Tensor &X) {
  for (int Step = 0; Step < 10; ++Step) {
    optimizer.zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: optimizer 'zero_grad()' zero-fills every gradient on LibTorch 1.13; reset the gradients instead so backward() writes them without a memset [torch-zero-grad]
    // CHECK-FIXES: {{^}}#if TORCH_VERSION_MAJOR >= 2{{$}}
    // CHECK-FIXES-NEXT: {{^}}    optimizer.zero_grad();{{$}}
    // CHECK-FIXES-NEXT: {{^}}#else{{$}}
    // CHECK-FIXES-NEXT: {{^}}    for (auto &group : optimizer.param_groups()){{$}}
    // CHECK-FIXES-NEXT: {{^}}      for (auto &param : group.params()){{$}}
    // CHECK-FIXES-NEXT: {{^}}        param.mutable_grad().reset();{{$}}
    // CHECK-FIXES-NEXT: {{^}}#endif{{$}}
    Tensor Loss = model->forward(X);
    Loss.backward();
    optimizer.step();
  }
}

void positiveThroughPointer(torch::optim::Optimizer *opt, const Tensor &Loss) {
  opt->zero_grad(); // clear before the step
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: optimizer 'zero_grad()' zero-fills
  // CHECK-FIXES: {{^}}  opt->zero_grad();{{$}}
  // CHECK-FIXES-NEXT: {{^}}#else{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (auto &group : opt->param_groups()){{$}}
  // CHECK-FIXES: {{^}}#endif // clear before the step{{$}}
  Loss.backward();
}

void positiveNotAloneOnItsLine(torch::optim::Adam &adam, bool Clear) {
  if (Clear) adam.zero_grad();
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: optimizer 'zero_grad()' zero-fills
  // CHECK-FIXES: {{^}}  if (Clear) for (auto &group : adam.param_groups()) for (auto &param : group.params()) param.mutable_grad().reset();{{$}}
}

void positiveNameClash(torch::optim::SGD &group) {
  group.zero_grad();
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: optimizer 'zero_grad()' zero-fills
  // CHECK-FIXES: {{^}}  for (auto &group_ : group.param_groups()){{$}}
  // CHECK-FIXES-NEXT: {{^}}    for (auto &param : group_.params()){{$}}
}

void positiveModule(Net &model, torch::nn::Linear &Head) {
  model->zero_grad();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: module 'zero_grad()' zero-fills every gradient on LibTorch 1.13; pass set_to_none=true so backward() writes them without a memset [torch-zero-grad]
  // CHECK-FIXES: {{^}}  model->zero_grad(/*set_to_none=*/true);{{$}}
  Head->zero_grad(false);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'zero_grad(false)' zero-fills every gradient; reset the gradients instead so backward() writes them without a memset [torch-zero-grad]
  // CHECK-FIXES: {{^}}  Head->zero_grad(true);{{$}}
}

void positiveManualLoops(Net &model) {
  for (auto &P : model->parameters()) {
    if (P.grad().defined()) {
      P.grad().detach_();
      P.grad().zero_();
      // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: zeroing a gradient in place costs a memset per parameter every step; reset it with 'mutable_grad().reset()' so backward() writes it directly [torch-zero-grad]
      // CHECK-FIXES: {{^}}      P.mutable_grad().reset();{{$}}
    }
  }
}

void positiveIndexedLoop(Net &model) {
  std::vector<Tensor> Params = model->parameters();
  for (size_t I = 0; I < Params.size(); ++I)
    Params[I].mutable_grad().zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: zeroing a gradient in place
  // CHECK-FIXES: {{^}}    Params[I].mutable_grad().reset();{{$}}
}

#define CLEAR_GRADS(opt) (opt).zero_grad()

void warnWithoutFixInMacro(torch::optim::SGD &optimizer) {
  CLEAR_GRADS(optimizer);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: optimizer 'zero_grad()' zero-fills every gradient on LibTorch 1.13; reset the gradients instead so backward() writes them without a memset; no fix-it: the call is in a macro expansion [torch-zero-grad]
}

void warnWithoutFixWhenGradsAreRead(torch::optim::SGD &optimizer, Net &model,
                                    const Tensor &X) {
  optimizer.zero_grad();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: optimizer 'zero_grad()' zero-fills every gradient on LibTorch 1.13; reset the gradients instead so backward() writes them without a memset; no fix-it: the gradients are read before the next backward() [torch-zero-grad]
  // CHECK-MESSAGES: :[[@LINE+3]]:{{[0-9]+}}: note: the gradients are read here
  Tensor Out = model->forward(X);
  for (auto &P : model->parameters())
    P.grad().add_(Out);
  Out.backward();
}

void warnWithoutFixWhenResultIsUsed(Net &model) {
  for (auto &P : model->parameters()) {
    Tensor &G = P.grad().zero_();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: zeroing a gradient in place costs a memset per parameter every step; reset it with 'mutable_grad().reset()' so backward() writes it directly; no fix-it: the result of 'zero_()' is used [torch-zero-grad]
    G.add_(P);
  }
}

void negativeAlreadyResetting(Net &model, torch::optim::SGD &optimizer,
                              bool KeepZeros) {
  model->zero_grad(true);
  model->zero_grad(/*set_to_none=*/true);
  // A runtime choice may be deliberate.
  model->zero_grad(KeepZeros);
  for (auto &P : model->parameters())
    P.mutable_grad().reset();
  for (auto &Group : optimizer.param_groups())
    for (auto &P : Group.params())
      P.mutable_grad().reset();
}

void negativeNotAGradient(std::vector<Tensor> &Buffers, Tensor &W) {
  // Zeroing buffers that are not gradients is fine.
  for (auto &B : Buffers)
    B.zero_();
  // A single zero_ outside any loop is not a clearing loop.
  W.grad().zero_();
}

void negativeLibTorchInternals(torch::optim::SGD &optimizer, Net &model,
                               std::vector<Tensor> &Params) {
  // The zero-filling code inside these LibTorch functions is not reported.
  torch::optim::resetOptimizer(optimizer);
  torch::nn::resetModule(*model);
  at::clearGradsInPlace(Params);
}

// A trainer template whose optimizer is a template parameter: the call is a
// LibTorch optimizer's in the instantiations this file makes (twice here),
// and is reported once, where it is written.
template <class Optimizer> struct Trainer {
  Optimizer *optimizer_;
  Tensor step(const Tensor &Loss) {
    optimizer_->zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: optimizer 'zero_grad()' zero-fills every gradient on LibTorch 1.13; reset the gradients instead so backward() writes them without a memset [torch-zero-grad]
    // CHECK-FIXES: {{^}}    for (auto &group : optimizer_->param_groups()){{$}}
    Loss.backward();
    optimizer_->step();
    return Loss;
  }
};

template struct Trainer<torch::optim::SGD>;
template struct Trainer<torch::optim::Optimizer>;

// Instantiated only with the user's own optimizer: not LibTorch's call.
struct MyOptimizer {
  void zero_grad();
  void step();
};
template <class Optimizer> struct OwnTrainer {
  Optimizer *optimizer_;
  void step() { optimizer_->zero_grad(); }
};
template struct OwnTrainer<MyOptimizer>;

// A function template's text is shared by its instantiations: fixed only
// when each one calls the same zero-filling zero_grad(). Here every
// instantiation is a LibTorch optimizer's.
template <class Opt> void clearEach(Opt &O, const Tensor &Loss) {
  O.zero_grad();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer 'zero_grad()' zero-fills every gradient on LibTorch 1.13; reset the gradients instead so backward() writes them without a memset [torch-zero-grad]
  // CHECK-FIXES: {{^}}#if TORCH_VERSION_MAJOR >= 2{{$}}
  // CHECK-FIXES-NEXT: {{^}}  O.zero_grad();{{$}}
  // CHECK-FIXES-NEXT: {{^}}#else{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (auto &group : O.param_groups()){{$}}
  Loss.backward();
}

void positiveEveryInstantiationIsAnOptimizer(torch::optim::SGD &Sgd,
                                             torch::optim::Adam &Adam,
                                             const Tensor &Loss) {
  clearEach(Sgd, Loss);
  clearEach(Adam, Loss);
}

// One instantiation calls a user's zero_grad(), which has no param_groups():
// the reset loops would not compile there.
struct NoOptimizer {
  void zero_grad() {}
};

template <class Opt> void stepMixed(Opt &O, const Tensor &Loss) {
  O.zero_grad();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer 'zero_grad()' zero-fills every gradient on LibTorch 1.13; reset the gradients instead so backward() writes them without a memset; no fix-it: another instantiation of the template makes a different call here [torch-zero-grad]
  Loss.backward();
}

void warnWithoutFixWhenAnInstantiationIsNoOptimizer(torch::optim::SGD &Sgd,
                                                    NoOptimizer &None,
                                                    const Tensor &Loss) {
  stepMixed(Sgd, Loss);
  stepMixed(None, Loss);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: instantiated here, where the call is to 'NoOptimizer::zero_grad'
}

// An optimizer and a module: both zero-fill, with fixes that differ.
template <class T> void clearGrads(T &Target) {
  Target.zero_grad();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: optimizer 'zero_grad()' zero-fills every gradient on LibTorch 1.13; reset the gradients instead so backward() writes them without a memset; no fix-it: another instantiation of the template makes a different call here [torch-zero-grad]
}

void warnWithoutFixWhenAnInstantiationIsAModule(torch::optim::SGD &Opt,
                                                NetImpl &Model) {
  clearGrads(Opt);
  clearGrads(Model);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: instantiated here, where the call is to 'torch::nn::Module::zero_grad'
}

// A class template instantiated with an optimizer and with a type of the
// user's.
template <class Optimizer> struct MixedTrainer {
  Optimizer *optimizer_;
  void step() { optimizer_->zero_grad(); }
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: optimizer 'zero_grad()' zero-fills every gradient on LibTorch 1.13; reset the gradients instead so backward() writes them without a memset; no fix-it: another instantiation of the template makes a different call here [torch-zero-grad]
};
template struct MixedTrainer<torch::optim::SGD>;
template struct MixedTrainer<MyOptimizer>;
// CHECK-MESSAGES: :[[@LINE-1]]:17: note: instantiated here, where the call is to 'MyOptimizer::zero_grad'
