// torch-missing-no-grad on the real LibTorch headers (Debian's 1.13), through
// both hosts; the runner compiles the fixed file against the same headers.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %s torch-missing-no-grad %t -- -- %torch_real
// LibTorch's own headers stay silent even with every header let through.
// RUN: %driver --checks='-*,torch-missing-no-grad' --header-filter='.*' --system-headers %s -- %torch_real | FileCheck %s --check-prefix=HEADERS
// HEADERS-NOT: {{include/(ATen|c10|torch)/.*}}warning:

#include <torch/torch.h>

#include <iostream>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(8, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

template <typename Loader>
void trainAndTest(Net &model, torch::optim::SGD &opt, Loader &train_loader,
                  Loader &test_loader) {
  model->train();
  for (auto &batch : train_loader) {
    opt.zero_grad();
    auto loss = torch::nll_loss(model->forward(batch.data), batch.target);
    loss.backward();
    opt.step();
  }
  model->eval();
  for (const auto &batch : test_loader) {
    auto output = model->forward(batch.data);
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: forward pass after eval() runs with autograd on: it records the graph and keeps activations for a backward() that never comes; turn autograd off with 'torch::NoGradGuard' ('c10::InferenceMode' is faster where the outputs never enter autograd later) [torch-missing-no-grad]
    // CHECK-MESSAGES: :[[@LINE-4]]:10: note: evaluation mode set here
    // CHECK-FIXES: {{^}}  for (const auto &batch : test_loader) {{{$}}
    // CHECK-FIXES-NEXT: {{^}}    torch::NoGradGuard no_grad;{{$}}
    (void)output.argmax(1);
  }
}

torch::Tensor predict(Net &model, const torch::Tensor &x) {
  return torch::softmax(model(x), 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: forward pass in evaluation function 'predict' runs with autograd on
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  return torch::softmax(model(x), 1);{{$}}
}
// Its one caller saves the probabilities.
void savePredictions(Net &model, const torch::Tensor &x) {
  torch::save(predict(model, x), "probabilities.pt");
}

// Returned to a caller that trains with the result (an actor-critic's
// evaluate_actions): not evaluation, whatever the name.
std::tuple<torch::Tensor, torch::Tensor> evaluate_actions(Net &model,
                                                          const torch::Tensor &x) {
  auto logits = model->forward(x);
  return {torch::log_softmax(logits, 1), logits.mean()};
}
void update(Net &model, torch::optim::Adam &opt, const torch::Tensor &x) {
  auto [log_probs, values] = evaluate_actions(model, x);
  opt.zero_grad();
  (-log_probs.mean() + values).backward();
  opt.step();
}

// Trained weights loaded, the module run once, the output saved.
void loadAndRun(Net &model, const torch::Tensor &x) {
  torch::load(model, "weights.pt");
  auto out = model->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: forward pass of a module whose trained weights are loaded runs with autograd on
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: weights loaded here; nothing in 'loadAndRun' needs gradients
  // CHECK-FIXES: {{^}}void loadAndRun(Net &model, const torch::Tensor &x) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}
  torch::save(out, "out.pt");
}

// A demo that prints what the model computes: nothing named for inference,
// no eval(), but only the host reads the output.
void printLogits(Net &model, const torch::Tensor &batch) {
  auto logits = model->forward(batch);
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: forward pass whose output only the host reads runs with autograd on
  // CHECK-FIXES: {{^}}void printLogits(Net &model, const torch::Tensor &batch) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}
  std::cout << "shape " << logits.sizes() << "\n";
  for (int64_t b = 0; b < logits.size(0); ++b)
    std::cout << logits.index({b, torch::indexing::Slice(0, 1)}) << "\n";
}

// A demonstration that prints the output's sizes (c10's operator<< of an
// IntArrayRef): run to show them, not to size a layer.
void showSizes(Net &model) {
  torch::Tensor out = model->forward(torch::randn({1, 20, 8}));
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: forward pass whose output only the host reads runs with autograd on
  std::cout << "output sizes " << out.sizes() << std::endl;
}
// CHECK-FIXES: {{^}}void showSizes(Net &model) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}

// --- Negative ---------------------------------------------------------------

// A shape probe at construction: only the size of the output is read.
int64_t featuresAfterConv(Net &model) {
  torch::Tensor probe = model->forward(torch::zeros({1, 3, 32, 32}));
  return probe.size(1) * probe.size(2);
}

torch::Tensor predictGuarded(Net &model, const torch::Tensor &x) {
  torch::NoGradGuard no_grad;
  model->eval();
  return model(x);
}

torch::Tensor inferInInferenceMode(Net &model, const torch::Tensor &x) {
  c10::InferenceMode guard;
  return model(x);
}

torch::Tensor testGradients(Net &model, torch::Tensor x) {
  x.requires_grad_(true);
  auto y = model(x).sum();
  return torch::autograd::grad({y}, {x})[0];
}

void fineTune(Net &model, torch::optim::SGD &opt, const torch::Tensor &x) {
  torch::load(model, "pretrained.pt");
  auto loss = model(x).sum();
  loss.backward();
  opt.step();
}

// The output reaches a function of the project's, which may train on it.
float score(const torch::Tensor &out) { return out.sum().item<float>(); }
float scoreOf(Net &model, const torch::Tensor &x) {
  auto out = model(x);
  std::cout << out.sizes() << "\n";
  return score(out);
}

// A warm-up before timing: followed by a device synchronize, it runs the
// forward as the timed calls do.
void warmUp(Net &model, const torch::Tensor &x) {
  auto out = model(x);
  out.sum().item<float>();
  torch::cuda::synchronize();
}

// A GAN's checkpoint in the training loop (samples every N batches, after
// restoring the generator): the block saves the generator and its samples
// and trains nothing, so the guard opens that block.
void trainWithSamples(Net &gen, torch::optim::Adam &opt, int64_t nz,
                      bool restore) {
  if (restore)
    torch::load(gen, "generator-checkpoint.pt");
  auto options = torch::TensorOptions().requires_grad(false);
  for (int64_t batch = 1; batch <= 100; ++batch) {
    opt.zero_grad();
    gen->forward(torch::randn({4, 8})).sum().backward();
    opt.step();
    if (batch % 10 == 0) {
      torch::save(gen, "generator-checkpoint.pt");
      torch::Tensor samples = gen->forward(torch::randn({64, nz}, options));
      // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: forward pass whose output only the host reads runs with autograd on
      torch::save(samples, torch::str("sample-", batch, ".pt"));
    }
  }
}
// CHECK-FIXES: {{^}}    if (batch % 10 == 0) {{{$}}
// CHECK-FIXES-NEXT: {{^}}      torch::NoGradGuard no_grad;{{$}}
// CHECK-FIXES-NEXT: {{^}}      torch::save(gen, "generator-checkpoint.pt");{{$}}

// A DQN's online network held as a torch::nn::AnyModule: greedy action
// selection after eval() reads the Q-values on the host alone.
int64_t greedyAction(torch::nn::AnyModule &q_net, const torch::Tensor &state) {
  q_net.ptr()->eval();
  torch::Tensor q = q_net.forward(state);
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: forward pass after eval() runs with autograd on
  // CHECK-MESSAGES: :[[@LINE-3]]:16: note: evaluation mode set here
  return q.argmax(1).item<int64_t>();
}
// CHECK-FIXES: {{^}}int64_t greedyAction(torch::nn::AnyModule &q_net, const torch::Tensor &state) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}

// A DQN's target network in the training step, through std::get of
// max(1)'s tuple into detach(): the guard goes into a lambda around the
// pass alone, and the inline form's guard around what detach() ends.
void learn(Net &online, Net &target, torch::optim::Adam &opt,
           const std::vector<torch::Tensor> &states,
           const torch::Tensor &next, const torch::Tensor &reward) {
  for (const auto &state : states) {
    auto q = online->forward(state);
    auto next_q = target->forward(next);
    // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: forward pass whose output is only detached or read on the host runs with autograd on: it records the graph and keeps activations for a backward() that never comes; turn autograd off for this expression alone with a 'torch::NoGradGuard' in a lambda (the step around it needs gradients) [torch-missing-no-grad]
    auto best = std::get<0>(next_q.max(1)).detach();
    auto goal = reward + 0.99 * std::get<0>(target(next).max(1)).detach();
    // CHECK-MESSAGES: :[[@LINE-1]]:45: warning: forward pass whose output is only detached or read on the host
    auto loss = torch::mse_loss(std::get<0>(q.max(1)), best + goal);
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}
// CHECK-FIXES: {{^}}    auto next_q = [&] { torch::NoGradGuard no_grad; return target->forward(next); }();{{$}}
// CHECK-FIXES: {{^}}    auto goal = reward + 0.99 * [&] { torch::NoGradGuard no_grad; return std::get<0>(target(next).max(1)); }().detach();{{$}}

// Autoregressive sampling: the sampled ids end the graph.
torch::Tensor generate(Net &model, torch::Tensor context, int64_t steps) {
  for (int64_t i = 0; i < steps; ++i) {
    auto logits = model->forward(context);
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: forward pass whose output only the host reads runs with autograd on
    auto probs = torch::softmax(logits, -1);
    auto next = torch::multinomial(probs, 1);
    context = torch::cat({context, next.to(torch::kFloat)}, 1);
  }
  return context;
}
// CHECK-FIXES: {{^}}torch::Tensor generate(Net &model, torch::Tensor context, int64_t steps) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}

int main() {
  Net model;
  torch::optim::SGD opt(model->parameters(), 0.1);
  std::vector<torch::data::Example<>> data;
  trainAndTest(model, opt, data, data);
  loadAndRun(model, torch::randn({1, 8}));
  fineTune(model, opt, torch::randn({1, 8}));
  printLogits(model, torch::randn({2, 8}));
  scoreOf(model, torch::randn({2, 8}));
  warmUp(model, torch::randn({2, 8}));
  torch::optim::Adam adam(model->parameters());
  trainWithSamples(model, adam, 8, false);
  showSizes(model);
  torch::nn::AnyModule any(model);
  greedyAction(any, torch::randn({1, 8}));
  generate(model, torch::randn({1, 8}), 2);
  Net target;
  learn(model, target, adam, {torch::randn({1, 8})}, torch::randn({1, 8}),
        torch::randn({1}));
  return predict(model, torch::randn({1, 8})).dim() +
         predictGuarded(model, torch::randn({1, 8})).dim() +
         inferInInferenceMode(model, torch::randn({1, 8})).dim() +
         testGradients(model, torch::randn({1, 8})).dim();
}
