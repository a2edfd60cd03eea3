#include "data.h"

PointSet::PointSet(int64_t Size, int64_t Width, int64_t Classes,
                   torch::Device Device) {
  Points = torch::randn({Size, Width}).to(Device);
  Labels = Points.narrow(1, 0, Classes).argmax(1);
}

torch::data::Example<> PointSet::get(size_t Index) {
  return {Points[static_cast<int64_t>(Index)],
          Labels[static_cast<int64_t>(Index)]};
}

torch::optional<size_t> PointSet::size() const {
  return static_cast<size_t>(Points.size(0));
}
