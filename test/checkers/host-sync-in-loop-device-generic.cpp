// Device-generic code: a translation unit that never names CUDA but receives
// the device from elsewhere (a torch::Device parameter or member, x.device(),
// x.options(), a module's parameters, the parameters an optimizer holds) is
// device code. A translation unit whose
// devices are all provably the CPU stays silent, and so does device-generic
// code when the project is known never to select CUDA (ProjectSelectsCuda, or
// DetectedProjectSelectsCuda, which a whole-project run of the driver sets).
//
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.param -- -- %torch_mock_2 -DPARAM
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.member -- -- %torch_mock_2 -DMEMBER
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.device -- -- %torch_mock_2 -DDEVICE_OF
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.options -- -- %torch_mock_2 -DOPTIONS
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.module -- -- %torch_mock_2 -DMODULE_PARAMS
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.ctor -- -- %torch_mock_2 -DSTORED
// RUN: %check_torch_tidy --check-suffix=GENERIC,OPT %s torch-host-sync-in-loop %t.opt -- -- %torch_mock_2 -DOPTIMIZER
//
// Provably CPU (also where CUDA is named only in branches dead under
// constant flags): silent; the same file reported once the flags may change.
// RUN: %check_torch_tidy --check-suffix=CPU %s torch-host-sync-in-loop %t.cpu -- -- %torch_mock_2 -DCPU_ONLY
// RUN: %check_torch_tidy --check-suffix=CPU %s torch-host-sync-in-loop %t.setup -- -- %torch_mock_2 -DOPTIMIZER_SETUP
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.flags -- -- %torch_mock_2 -DCPU_ONLY -DFLAGS_MAY_CHANGE
//
// A whole program in one file (main() and every function it reaches defined
// here) that never names CUDA runs on the CPU, however generic its code:
// silent. It is reported when main() reaches a function defined elsewhere,
// picks its device from a run-time string, or loads a saved module (which
// keeps the device it was saved from).
// RUN: %check_torch_tidy --check-suffix=CPU %s torch-host-sync-in-loop %t.closed -- -- %torch_mock_2 -DOPTIONS -DCLOSED
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.extern -- -- %torch_mock_2 -DOPTIONS -DCLOSED -DCALLS_EXTERN
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.flag -- -- %torch_mock_2 -DPARAM -DCLOSED -DDEVICE_FROM_FLAG
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.load -- -- %torch_mock_2 -DOPTIONS -DCLOSED -DLOADS_MODULE
// Another accelerator named by its string is a device too.
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.mps -- -- %torch_mock_2 -DOPTIONS -DCLOSED -DOTHER_ACCELERATOR
//
// The project never selects CUDA: device-generic code is silent; a user's
// own word wins over what the driver detected; a TU that names CUDA is still
// reported.
// RUN: %check_torch_tidy --check-suffix=NEVER %s torch-host-sync-in-loop %t.never -- \
// RUN:   -config="{CheckOptions: {torch-host-sync-in-loop.ProjectSelectsCuda: false}}" -- %torch_mock_2 -DPARAM
// RUN: %check_torch_tidy --check-suffix=NEVER %s torch-host-sync-in-loop %t.detected -- \
// RUN:   -config="{CheckOptions: {torch-host-sync-in-loop.DetectedProjectSelectsCuda: false}}" -- %torch_mock_2 -DOPTIONS
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.user -- \
// RUN:   -config="{CheckOptions: {torch-host-sync-in-loop.ProjectSelectsCuda: true, torch-host-sync-in-loop.DetectedProjectSelectsCuda: false}}" -- %torch_mock_2 -DPARAM
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.cuda -- \
// RUN:   -config="{CheckOptions: {torch-host-sync-in-loop.ProjectSelectsCuda: false}}" -- %torch_mock_2 -DNAMES_CUDA

#include <torch/torch.h>

#include <vector>

torch::Tensor computeLoss(const torch::Tensor &X);

float train(const std::vector<torch::Tensor> &Batches) {
  float Last = 0;
  for (const auto &X : Batches) {
    Last = computeLoss(X).item<float>();
    // CHECK-MESSAGES-GENERIC: :[[@LINE-1]]:27: warning: 'item()' synchronizes the host with the device per iteration of the loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
  }
  return Last;
}

#ifdef PARAM
// The device chosen in main.cpp, passed in.
torch::Tensor moveTo(const torch::Tensor &X, torch::Device Device) {
  return X.to(Device);
}
#endif

#ifdef MEMBER
// A device stored in a member.
struct Config {
  torch::Device Device{torch::kCPU};
};
#endif

#ifdef STORED
// A device passed into a constructor and stored.
class Trainer {
public:
  explicit Trainer(const torch::Device &D) : Device(D) {}

private:
  torch::Device Device;
};
#endif

#ifdef DEVICE_OF
// Wherever the input tensor is.
torch::Tensor like(const torch::Tensor &X) {
  return torch::zeros({2}, torch::TensorOptions().device(X.device()));
}
#endif

#ifdef OPTIONS
torch::Tensor zerosLike(const torch::Tensor &X) {
  return torch::zeros({2}, X.options());
}
#endif

#ifdef MODULE_PARAMS
// Where the model's parameters are.
torch::Tensor onModelDevice(torch::nn::Module &Model, const torch::Tensor &X) {
  return X.to(Model.parameters()[0].device());
}
#endif

#ifdef OPTIMIZER
// An optimizer's step reads the parameters its groups hold: a model's
// parameters, on the device the training code chose.
class Lamb : public torch::optim::Optimizer {
public:
  at::Tensor step() override {
    for (auto &Group : param_groups())
      for (auto &P : Group.params()) {
        torch::Tensor Norm = P.norm();
        double Ratio = Norm.item<double>() == 0.0 ? 1.0 : 0.5;
        // CHECK-MESSAGES-OPT: :[[@LINE-1]]:29: warning: 'item()' synchronizes the host with the device per iteration of the loop; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
        P.add_(P.mul(Ratio));
      }
    return {};
  }
};
#endif

#ifdef OPTIMIZER_SETUP
// A model's parameters handed to an optimizer, and its groups counted: no
// sign of a device.
int setUp(torch::nn::Module &Model) {
  torch::optim::SGD Optimizer(Model.parameters(), 0.1);
  int Groups = 0;
  for (auto &Group : Optimizer.param_groups()) {
    (void)Group;
    ++Groups;
  }
  return Groups;
}
#endif

#ifdef CPU_ONLY
// Every device here is provably the CPU's: a local Device holding kCPU, the
// options of a tensor made on it.
torch::Tensor onCpu() {
  torch::Device Device(torch::kCPU);
  torch::Tensor W = torch::zeros({2}).to(Device);
  return torch::zeros({2}, W.options());
}

// CUDA named only where a constant flag keeps it from running.
torch::Tensor forcedCpu() {
  const bool UseCuda = false;
  bool Verbose = false;
#ifdef FLAGS_MAY_CHANGE
  bool *Changer = &Verbose;
  (void)Changer;
#endif
  torch::Device Device(torch::kCPU);
  if (torch::cuda::is_available() && UseCuda)
    Device = torch::Device(torch::kCUDA);
  torch::Device Other = UseCuda ? torch::Device("cuda:0") : torch::Device("cpu");
  torch::Tensor W = torch::zeros({2}).to(Device).to(Other);
  if (Verbose)
    W = W.cuda();
  return torch::zeros({2}, W.options());
}
#endif

#ifdef NAMES_CUDA
torch::Tensor onGpu(const torch::Tensor &X) { return X.to(torch::kCUDA); }
#endif

#ifdef CLOSED
#ifdef LOADS_MODULE
#include <torch/script.h>
#endif

torch::Tensor computeLoss(const torch::Tensor &X) { return X.sum(); }

#ifdef CALLS_EXTERN
std::vector<torch::Tensor> loadBatches();
#else
std::vector<torch::Tensor> loadBatches() { return {torch::ones({2})}; }
#endif

int main(int Argc, char **Argv) {
  std::vector<torch::Tensor> Batches = loadBatches();
#ifdef DEVICE_FROM_FLAG
  torch::Device Device(Argc > 1 ? Argv[1] : "cpu");
  for (auto &B : Batches)
    B = moveTo(B, Device);
#elif defined(OPTIONS)
  for (auto &B : Batches)
    B = B + zerosLike(B);
#endif
#ifdef OTHER_ACCELERATOR
  torch::Device Accelerator("mps");
  for (auto &B : Batches)
    B = B.to(Accelerator);
#endif
#ifdef LOADS_MODULE
  torch::jit::Module Model = torch::jit::load("model.pt");
  (void)Model;
#endif
  (void)Argv;
  return train(Batches) > 0 ? 0 : Argc;
}
#endif
