// RUN: %check_torch_tidy %s torch-blocking-host-to-device-copy %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <queue>
#include <utility>
#include <vector>

using torch::Tensor;

void use(const Tensor &T);

// An inference server: producers queue host tensors built from their
// boards, the inference thread's loop batches them and copies the batch.
class Server {
public:
  void serve() {
    while (Running)
      infer();
  }
  void commit(const std::vector<int> &Board, int Id) {
    auto State = toTensor(Board);
    Tasks.emplace(std::make_pair(State, Id));
  }
  static Tensor toTensor(const std::vector<int> &Board) {
    Tensor Cells = torch::from_blob(const_cast<int *>(Board.data()), {1, 9});
    Tensor Mine = Cells.gt(0);
    Tensor Theirs = Cells.gt(1);
    // Exchanging two host tensors keeps both on the host.
    if (Board[0] == 1)
      std::swap(Mine, Theirs);
    return torch::cat({Mine, Theirs, torch::zeros({1, 9})}, 1);
  }
  void infer() {
    std::vector<Tensor> States;
    while (!Tasks.empty()) {
      auto Task = std::move(Tasks.front());
      States.emplace_back(std::move(Task.first));
      Tasks.pop();
    }
    use(torch::cat(States, 0).to(torch::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: blocking copy of host data to the device in every call of 'infer', called in a loop; pin the source and copy with non_blocking=true so the copy overlaps with the computation [torch-blocking-host-to-device-copy]
    // CHECK-MESSAGES: :[[@LINE-25]]:5: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    use(torch::cat(States, 0).pin_memory().to(torch::kCUDA, /*non_blocking=*/true));{{$}}
  }
  bool Running = true;
  std::queue<std::pair<Tensor, int>> Tasks;
};

// Negatives: a queue that also receives a device tensor, a queue assigned
// as a whole, a swap with a tensor of unknown device.
class MixedServer {
public:
  void serve(const Tensor &Remote) {
    while (Running) {
      Tasks.push(Remote);
      infer();
    }
  }
  void commit(const std::vector<int> &Board) {
    Tasks.push(torch::from_blob(const_cast<int *>(Board.data()), {9}));
  }
  void infer() {
    auto Item = std::move(Tasks.front());
    Tasks.pop();
    use(Item.to(torch::kCUDA));
  }
  bool Running = true;
  std::queue<Tensor> Tasks;
};

class ReplacedQueue {
public:
  void serve(std::queue<Tensor> Other) {
    while (Running) {
      Tasks = Other;
      infer();
    }
  }
  void commit(const std::vector<int> &Board) {
    Tasks.push(torch::from_blob(const_cast<int *>(Board.data()), {9}));
  }
  void infer() {
    auto Item = Tasks.front();
    Tasks.pop();
    use(Item.to(torch::kCUDA));
  }
  bool Running = true;
  std::queue<Tensor> Tasks;
};

void swapWithUnknown(const std::vector<int> &Board, Tensor Remote) {
  for (int Step = 0; Step < 3; ++Step) {
    Tensor Local = torch::from_blob(const_cast<int *>(Board.data()), {9});
    Tensor Other = Remote * 2.0;
    std::swap(Local, Other);
    use(Local.to(torch::kCUDA));
  }
}
