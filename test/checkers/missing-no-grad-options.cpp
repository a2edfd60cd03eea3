// RUN: %check_torch_tidy %s torch-missing-no-grad %t -- \
// RUN:   -config="{CheckOptions: {torch-missing-no-grad.Guard: InferenceMode}}" \
// RUN:   -- %torch_mock_2

// LibTorch 2.x, and the InferenceMode guard.
#include <torch/torch.h>

#include <vector>

struct NetImpl : torch::nn::Module {
  torch::nn::Linear Fc{nullptr};
  at::Tensor forward(const at::Tensor &X) { return Fc(X); }
};
TORCH_MODULE(Net);

struct Batch {
  at::Tensor data, target;
};

void validate(Net &Model, std::vector<Batch> &Loader) {
  Model->eval();
  for (auto &B : Loader) {
    auto Out = Model->forward(B.data);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: forward pass after eval() runs with autograd on: it records the graph and keeps activations for a backward() that never comes; turn autograd off with 'c10::InferenceMode' (its outputs can never enter autograd later) [torch-missing-no-grad]
  }
}
// CHECK-FIXES: {{^}}void validate(Net &Model, std::vector<Batch> &Loader) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  c10::InferenceMode inference_mode;{{$}}
// CHECK-FIXES-NEXT: {{^}}  Model->eval();{{$}}

// The name is taken: the guard gets another.
at::Tensor infer(Net &Model, const at::Tensor &X) {
  int inference_mode = 0;
  return Model(X * inference_mode);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass in evaluation function 'infer' runs with autograd on
  // CHECK-FIXES: {{^}}  c10::InferenceMode inference_mode_guard;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  int inference_mode = 0;{{$}}
}

// InferenceMode(false) does not turn autograd off.
at::Tensor predict(Net &Model, const at::Tensor &X) {
  c10::InferenceMode Off(false);
  return Model(X);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass in evaluation function 'predict' runs with autograd on
  // CHECK-FIXES: {{^}}  c10::InferenceMode inference_mode;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  c10::InferenceMode Off(false);{{$}}
}

// What the two return, their caller only reads on the host.
float meanOfPredictions(Net &Model, const at::Tensor &X) {
  return (infer(Model, X) + predict(Model, X)).mean().item<float>();
}

// --- Negative ---------------------------------------------------------------

at::Tensor inferGuarded(Net &Model, const at::Tensor &X) {
  torch::autograd::InferenceMode Guard(true);
  return Model(X);
}

void evalFromCaller(Net &Model, const at::Tensor &X);
void evalCaller(Net &Model, const at::Tensor &X) {
  c10::InferenceMode Guard;
  evalFromCaller(Model, X);
}
void evalFromCaller(Net &Model, const at::Tensor &X) {
  Model->eval();
  auto Y = Model(X);
}
