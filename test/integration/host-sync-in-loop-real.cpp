// torch-host-sync-in-loop on the real LibTorch headers (Debian's 1.13), through
// both hosts; the fixed file is compiled against the same headers.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- %torch_real
// Only the device-generic function and the template trainer: a translation
// unit that never names CUDA.
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.generic -- -- %torch_real -DGENERIC_ONLY
// Only the optimizer step: the parameters it reads from its groups are a
// model's, on the device the training code chose.
// RUN: %check_torch_tidy --check-suffix=OPT %s torch-host-sync-in-loop %t.opt -- -- %torch_real -DGENERIC_ONLY -DOPTIMIZER_ONLY
// The same device-generic code with a main() that runs it on the CPU: the
// whole program is in this file and never names CUDA, so nothing waits.
// RUN: %check_torch_tidy --check-suffix=CPUPROG %s torch-host-sync-in-loop %t.cpuprog -- -- %torch_real -DGENERIC_ONLY -DCPU_PROGRAM

#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// An optimizer's step written against its parameter groups.
void lambStep(torch::optim::Optimizer &optimizer, double lr) {
  torch::NoGradGuard no_grad;
  for (auto &group : optimizer.param_groups())
    for (auto &p : group.params()) {
      if (!p.grad().defined())
        continue;
      auto weight_norm = p.norm();
      double norm = weight_norm.item<double>();
      // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'item()' synchronizes the host with the device per iteration of the loop; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
      // CHECK-MESSAGES-GENERIC: :[[@LINE-2]]:33: warning: 'item()' synchronizes the host with the device per iteration of the loop
      // CHECK-MESSAGES-OPT: :[[@LINE-3]]:33: warning: 'item()' synchronizes the host with the device per iteration of the loop
      double ratio = norm == 0.0 ? 1.0 : norm;
      p.add_(p.grad(), -lr * ratio);
    }
}

#ifndef OPTIMIZER_ONLY
// Device-generic: the device comes from the caller (main.cpp chose it).
float trainOn(Net &model, torch::optim::SGD &optimizer,
              const torch::Device &device, int steps) {
  float last = 0;
  for (int step = 0; step < steps; ++step) {
    auto input = torch::randn({8, 4}, torch::TensorOptions().device(device));
    optimizer.zero_grad();
    auto loss = model->forward(input).sum();
    loss.backward();
    optimizer.step();
    last = loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'item()' synchronizes the host with the device per iteration of the loop
    // CHECK-MESSAGES-GENERIC: :[[@LINE-2]]:17: warning: 'item()' synchronizes the host with the device per iteration of the loop
  }
  return last;
}

// A header-only trainer that nothing here instantiates.
template <typename T, typename ModelT, typename OptimizerT>
T trainTemplate(ModelT &model, OptimizerT &optimizer,
                const torch::Tensor &input, int steps) {
  T last = 0;
  for (int step = 0; step < steps; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = model->forward(input).sum();
    loss.backward();
    optimizer.step();
    last = loss.template item<T>();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item()' synchronizes the host with the device per iteration of the loop
    // CHECK-MESSAGES-GENERIC: :[[@LINE-2]]:26: warning: 'item()' synchronizes the host with the device per iteration of the loop
    auto host = input.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: copying a tensor to the CPU synchronizes
    // CHECK-MESSAGES-GENERIC: :[[@LINE-2]]:23: warning: copying a tensor to the CPU synchronizes
    (void)host;
  }
  return last;
}

// A trainer that dispatches on its device: the CPU variant's syncs wait for
// nothing; the other's are reported.
class Fitter {
public:
  explicit Fitter(torch::Device device) : device_(device) {}
  float fit(Net &model, const torch::Tensor &input, int steps) {
    if (device_.type() == torch::kCPU)
      return fitOnCpu(model, input, steps);
    return fitOnDevice(model, input, steps);
  }

private:
  float fitOnCpu(Net &model, const torch::Tensor &input, int steps) {
    float last = 0;
    for (int step = 0; step < steps; ++step)
      last = model->forward(input).sum().item<float>();
    return last;
  }
  float fitOnDevice(Net &model, const torch::Tensor &input, int steps) {
    float last = 0;
    for (int step = 0; step < steps; ++step)
      last = model->forward(input).sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'item()' synchronizes the host with the device per iteration of the loop
    // CHECK-MESSAGES-GENERIC: :[[@LINE-2]]:42: warning: 'item()' synchronizes the host with the device per iteration of the loop
    return last;
  }
  torch::Device device_;
};
#endif // OPTIMIZER_ONLY

#ifndef GENERIC_ONLY

float train(Net &model, torch::optim::SGD &optimizer, torch::Device device,
            int steps) {
  float running_loss = 0;
  for (int step = 0; step < steps; ++step) {
    auto input = torch::randn({8, 4}).to(device);
    auto target = torch::randn({8, 2}).to(device);
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model->forward(input), target);
    AT_ASSERT(!std::isnan(loss.item<float>()));
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'item()' synchronizes the host with the device per iteration of the loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
    loss.backward();
    torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'clip_grad_norm_()' synchronizes
    optimizer.step();
    running_loss += loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
    if (step % 10 == 0)
      std::cout << "step " << step << " loss " << loss << "\n";
  }
  // CHECK-FIXES: {{^}}  torch::Tensor running_loss_device;{{$}}
  // CHECK-FIXES: {{^}}    running_loss_device = running_loss_device.defined() ? running_loss_device + loss.detach().to(torch::kFloat) : loss.detach().to(torch::kFloat);{{$}}
  // CHECK-FIXES: {{^}}  if (running_loss_device.defined()){{$}}
  // CHECK-FIXES-NEXT: {{^}}    running_loss += running_loss_device.item<float>();{{$}}
  return running_loss / steps;
}

// A size_t factor: `tensor * n` is ambiguous on LibTorch 1.13, whose Scalar
// has no constructor for it; the fix casts it.
double meanLoss(const std::vector<std::vector<torch::Tensor>> &batches,
                torch::Device device) {
  double running = 0;
  for (const auto &batch : batches) {
    torch::Tensor loss = batch.front().to(device).sum();
    running += loss.item<float>() * batch.size();
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
  }
  // CHECK-FIXES: {{^}}    running_device = running_device.defined() ? running_device + loss.detach().to(torch::kFloat) * static_cast<int64_t>(batch.size()) : (loss.detach().to(torch::kFloat) * static_cast<int64_t>(batch.size())).to(torch::kDouble);{{$}}
  return running;
}

void evaluate(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  auto inputs = torch::randn({16, 4});
  for (int i = 0; i < 16; ++i) {
    if (torch::cuda::is_available())
      torch::cuda::synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'torch::cuda::synchronize()' synchronizes
    auto out = model->forward(inputs[i].unsqueeze(0).to(device));
    // The iteration's one copy that the host reads (printed, item()) is
    // needed; reading the host copy is free, and a synchronize after it
    // waits for nothing.
    auto host = out.to(torch::kCPU);
    std::cout << host << "\n";
    float first = host[0][0].item<float>();
    if (torch::cuda::is_available())
      torch::cuda::synchronize();
    (void)first;
  }
}

// ---- Implicit syncs and copies ---------------------------------------------

void implicitSyncs(Net &model, torch::Device device, int steps) {
  auto data = torch::randn({64, 4}).to(device);
  auto perm = torch::randperm(64);
  for (int step = 0; step < steps; ++step) {
    auto out = model->forward(data);
    auto positive = out.index({out > 0});
    // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: boolean-mask indexing synchronizes the host with the device per iteration of the loop; it runs 'nonzero' to size its output, so the host waits for it; keep the shape fixed ('where' with the mask, or multiply by it) or move it out of the loop [torch-host-sync-in-loop]
    auto mask = out.to(torch::kBool);
    auto kept = out[mask];
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: boolean-mask indexing synchronizes
    auto counts = torch::bincount(out.argmax(1));
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'bincount()' synchronizes
    auto batch = data.index_select(0, perm);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: indexing with a host tensor synchronizes the host with the device per iteration of the loop; an index tensor made on the host is copied to the device at every use; make it on the device [torch-host-sync-in-loop]
    // Integer and slice indexing is no sync.
    auto first = out[0];
    auto rows = out.index({torch::indexing::Slice(0, 2)});
    (void)positive, (void)kept, (void)counts, (void)batch, (void)first,
        (void)rows;
  }
}

// ---- Syncs the program needs, error paths, dtype conversions ---------------

void neededSyncs(Net &model, torch::Device device, const torch::Tensor &ref,
                 std::vector<int64_t> &actions, int steps) {
  auto state = torch::randn({8, 4}).to(device);
  for (int step = 0; step < steps; ++step) {
    auto out = model->forward(state);
    if (out.abs().max().item<float>() > 1e6f)
      break;
    auto chosen = out.argmax(1).cpu();
    actions.push_back(chosen.data_ptr<int64_t>()[0]);
    state = state.to(ref.dtype());
    if (state.dim() != 2) {
      std::cerr << "bad state " << state << "\n";
      std::abort();
    }
  }
}

// A decoder whose step takes the host's token ids: the sampled ids must
// reach the host before the next step can start, and the stop test reads
// them through the host copy. Needed, so silent.
struct Decoder {
  torch::Tensor step(const std::vector<int64_t> &ids) { return logits.clone(); }
  torch::Tensor logits;
};

std::vector<int64_t> generate(Decoder &decoder, torch::Tensor logits,
                              int64_t eos, int maxLen) {
  std::vector<int64_t> out;
  for (int i = 0; i < maxLen; ++i) {
    auto sampled = logits.argmax(-1).to(torch::kCPU);
    std::vector<int64_t> next;
    for (int64_t b = 0; b < sampled.size(0); ++b)
      next.push_back(sampled[b].item<int64_t>());
    if (sampled[0].item<int64_t>() == eos)
      break;
    out.insert(out.end(), next.begin(), next.end());
    logits = decoder.step(next);
  }
  // Fed back through a tensor, the ids could have stayed on the device.
  for (int i = 0; i < maxLen; ++i) {
    int64_t tok = logits.argmax(-1).item<int64_t>();
    // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'item()' synchronizes the host with the device per iteration of the loop; {{.*}} [torch-host-sync-in-loop]
    logits = decoder.logits.index_select(0, torch::tensor({tok}).cuda());
  }
  return out;
}

// A hand-written NMS: the rows nonzero keeps decide when the loop ends, so
// the host needs the count. Filtering by a mask whose count nothing tests is
// avoidable.
std::vector<int64_t> nms(torch::Tensor boxes, torch::Tensor scores,
                         double threshold) {
  std::vector<int64_t> keep;
  torch::Tensor order = std::get<1>(scores.sort(0, true));
  while (order.size(0) > 0) {
    keep.push_back(order[0].item<int64_t>());
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'item()' synchronizes the host with the device per iteration of the loop; {{.*}} [torch-host-sync-in-loop]
    torch::Tensor ious = boxes.index_select(0, order).sum(1);
    order = torch::index_select(
        order, 0, torch::nonzero(ious <= threshold).select(1, 0) + 1);
  }
  for (int round = 0; round < 4; ++round) {
    boxes = boxes.masked_select(scores > threshold);
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'masked_select()' synchronizes the host with the device per iteration of the loop; {{.*}} [torch-host-sync-in-loop]
    scores = scores * 0.5;
  }
  return keep;
}

void mergeableCopies(Net &model, torch::Device device, int steps,
                     std::vector<int64_t> &actions) {
  auto state = torch::randn({8, 4}).to(device);
  for (int step = 0; step < steps; ++step) {
    auto out = model->forward(state);
    auto chosen = out.argmax(1).cpu();
    auto values = model->forward(state).max().cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:47: warning: copying a tensor to the CPU synchronizes the host with the device per iteration of the loop; this iteration already copies a tensor to the CPU: concatenate both on the device and copy them in one transfer [torch-host-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-3]]:33: note: the iteration's first copy to the CPU is here; one copy of both needs one synchronization
    actions.push_back(chosen.data_ptr<int64_t>()[0]);
    std::printf("%f\n", values.data_ptr<float>()[0]);
    std::printf("loss %f\n", out.sum().item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: 'item()' synchronizes the host with the device per iteration of the loop; log it every N steps [torch-host-sync-in-loop]
  }
}

// ---- Generation, assertions, loops over devices -----------------------------

std::string tokenText(int64_t id) { return "<" + std::to_string(id) + ">"; }

// The token read back decides leaving the loop (through the loop's condition)
// and feeds host-only code: needed.
std::string generate(Net &model, torch::Device device, int max_len) {
  auto ids = torch::zeros({8, 4}).to(device);
  std::string text;
  std::string word;
  for (int i = 0; i < max_len && word != "<2>"; ++i) {
    auto out = model->forward(ids);
    int next = out.argmax(1)[0].item().toInt();
    word = tokenText(next);
    text += word;
    ids = ids.roll(1, 0);
  }
  return text;
}

// A test's assertion: the value read only decides a failure.
void assertFinite(const torch::Tensor &t) {
  auto ok = torch::isfinite(t).all().item<bool>();
  if (!ok) {
    std::cerr << "not finite\n";
    std::exit(1);
  }
}

void checkSteps(Net &model, torch::Device device, int steps) {
  auto x = torch::randn({8, 4}).to(device);
  for (int step = 0; step < steps; ++step) {
    assertFinite(model->forward(x));
    x = x * 0.5;
  }
}

// One iteration per device.
double sumPerDevice(const std::map<c10::DeviceType, torch::Tensor> &found_inf) {
  double sum = 0;
  for (const auto &entry : found_inf)
    sum += entry.second.item<double>();
  return sum;
}
// A model whose forward() loops over its blocks is one forward pass: the loop
// that trains it is no epoch loop, and its per-step read is reported.
struct StackedImpl : torch::nn::Module {
  torch::nn::ModuleList blocks{torch::nn::ModuleList()};
  torch::Tensor forward(torch::Tensor x) {
    for (size_t i = 0; i < blocks->size(); ++i)
      x = blocks[i]->as<torch::nn::Linear>()->forward(x);
    return x;
  }
};
TORCH_MODULE(Stacked);

void trainStacked(Stacked &model, torch::optim::SGD &optimizer,
                  torch::Device device, int steps) {
  auto x = torch::randn({8, 4}).to(device);
  float total = 0;
  for (int step = 0; step < steps; ++step) {
    auto loss = model->forward(x).sum();
    loss.backward();
    optimizer.step();
    total += loss.cpu().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: copying a tensor to the CPU synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
  }
  std::printf("%f\n", total);
}
// One element of a copy, only logged: the same sync as a logged item().
void logEnergy(Net &model, torch::Device device, int steps) {
  auto x = torch::randn({8, 4}).to(device);
  for (int step = 0; step < steps; ++step) {
    auto energy = model->forward(x).sum();
    std::cout << "energy " << energy.cpu().data_ptr<float>()[0] << "\n";
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: copying a tensor to the CPU synchronizes the host with the device per iteration of the loop; log it every N steps [torch-host-sync-in-loop]
    x = x * 0.5;
  }
}
// Per-sample forwards in an inner loop, one optimizer step per batch: the
// outer loop steps itself, so it runs per step, not per epoch.
void trainPerSample(Net &model, torch::optim::SGD &optimizer,
                    const std::vector<std::vector<torch::Tensor>> &batches) {
  double total = 0;
  for (const auto &batch : batches) {
    auto loss = torch::zeros({});
    for (const auto &x : batch)
      loss = loss + model->forward(x).sum();
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    total += loss.item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
  }
  std::printf("%f\n", total);
}
// A parameter every call here passes a host tensor is on the CPU: silent.
int classesPresent(const torch::Tensor &gt, int classes) {
  int n = 0;
  for (int c = 0; c < classes; ++c)
    n += (gt == c).any().item<bool>() ? 1 : 0;
  return n;
}

// One call passes the device tensor itself: reported.
int classesPresentAnywhere(const torch::Tensor &gt, int classes) {
  int n = 0;
  for (int c = 0; c < classes; ++c)
    n += (gt == c).any().item<bool>() ? 1 : 0;
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item()' synchronizes the host with the device per iteration of the loop; {{.*}} [torch-host-sync-in-loop]
  return n;
}

int presenceOf(Net &model, torch::Device device) {
  auto targets = model->forward(torch::randn({8, 4}).to(device));
  return classesPresent(targets.squeeze(0).cpu(), 4) +
         classesPresentAnywhere(targets.cpu(), 4) +
         classesPresentAnywhere(targets, 4);
}

float f1Score(const std::vector<int> &preds, const std::vector<int> &targets);

// An evaluation loop whose predictions reach host code every batch: the
// copy waits for the batch's whole queue, so the count read before it and
// the loss read after it wait for nothing more.
float testEpoch(Net &model, torch::Device device,
                const std::vector<torch::Tensor> &batches) {
  torch::NoGradGuard no_grad;
  float total = 0;
  std::vector<int> preds, targets;
  for (const auto &batch : batches) {
    auto data = batch.to(device);
    auto target = torch::zeros({data.size(0)}, torch::kLong).to(device);
    auto output = model->forward(data);
    auto loss = torch::nn::functional::cross_entropy(output, target);
    auto prediction = output.argmax(1);
    int correct = prediction.eq(target).sum().item().toInt();
    auto pred_cpu = prediction.to(torch::kCPU);
    auto target_cpu = target.to(torch::kCPU);
    preds.clear();
    targets.clear();
    for (int i = 0; i < pred_cpu.size(0); ++i) {
      preds.push_back(pred_cpu[i].item<int>());
      targets.push_back(target_cpu[i].item<int>());
    }
    total += f1Score(preds, targets) + correct;
    total += loss.item().toFloat() * data.size(0);
  }
  return total;
}
#endif // GENERIC_ONLY

#if defined(GENERIC_ONLY) && defined(CPU_PROGRAM)
int main() {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  torch::Device device(torch::kCPU);
  float a = trainOn(model, optimizer, device, 2);
  torch::Tensor input = torch::randn({8, 4});
  float b = trainTemplate<float>(model, optimizer, input, 2);
  Fitter fitter(device);
  float c = fitter.fit(model, input, 2);
  lambStep(optimizer, 0.1);
  return static_cast<int>(a + b + c);
}
#endif

// Two copies with only a few ops between them: the second waits for those
// ops alone, so there is nothing to merge.
void copiesOfOneResult(Net &model, torch::Device device, int steps,
                       std::vector<int64_t> &actions) {
  auto state = torch::randn({8, 4}).to(device);
  for (int step = 0; step < steps; ++step) {
    auto out = model->forward(state);
    auto chosen = out.argmax(1).cpu();
    auto values = out.max().cpu();
    actions.push_back(chosen.data_ptr<int64_t>()[0]);
    std::printf("%f\n", values.data_ptr<float>()[0]);
  }
}
