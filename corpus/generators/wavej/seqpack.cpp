// seqpack: pack tokenised documents into fixed-length training rows (greedy, in document order), one std::thread
// per chunk of documents. Each row is `row_len` tokens; a document that does not fit in the rest of the current row
// starts a new row; the tail of a row is padded with `pad_id`.
#include <torch/extension.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

void pack_chunk(const std::vector<std::vector<int64_t>>& docs, size_t begin, size_t end, int64_t row_len,
                int64_t pad_id, std::vector<std::vector<int64_t>>* rows_out) {
  std::vector<int64_t> row(row_len, pad_id);
  int64_t fill = 0;
  for (size_t d = begin; d < end; ++d) {
    const auto& tok = docs[d];
    const int64_t n = static_cast<int64_t>(tok.size());
    if (fill + n > row_len && fill > 0) {  // does not fit: close the row, start a new one
      rows_out->push_back(row);
      std::fill(row.begin(), row.end(), pad_id);
      fill = 0;
    }
    for (int64_t j = 0; j < n; ++j) {
      row.at(fill + j) = tok[j];
    }
    fill += n;
  }
  if (fill > 0) rows_out->push_back(row);
}

}  // namespace

torch::Tensor pack(const std::vector<torch::Tensor>& documents, int64_t row_len, int64_t pad_id, int64_t threads) {
  std::vector<std::vector<int64_t>> docs;
  docs.reserve(documents.size());
  for (const auto& t : documents) {
    auto c = t.to(torch::kLong).contiguous();
    docs.emplace_back(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
  }
  const size_t n_threads = std::max<int64_t>(1, std::min<int64_t>(threads, docs.size()));
  std::vector<std::vector<std::vector<int64_t>>> parts(n_threads);
  std::vector<std::thread> pool;
  const size_t per = (docs.size() + n_threads - 1) / n_threads;
  for (size_t t = 0; t < n_threads; ++t) {
    const size_t b = std::min(docs.size(), t * per), e = std::min(docs.size(), (t + 1) * per);
    pool.emplace_back(pack_chunk, std::cref(docs), b, e, row_len, pad_id, &parts[t]);
  }
  for (auto& th : pool) th.join();
  int64_t n_rows = 0;
  for (const auto& p : parts) n_rows += static_cast<int64_t>(p.size());
  auto out = torch::full({n_rows, row_len}, pad_id, torch::kLong);
  auto acc = out.accessor<int64_t, 2>();
  int64_t r = 0;
  for (const auto& p : parts)
    for (const auto& row : p) {
      for (int64_t j = 0; j < row_len; ++j) acc[r][j] = row[j];
      ++r;
    }
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("pack", &pack, "pack documents into rows of row_len tokens", py::arg("documents"), py::arg("row_len"),
        py::arg("pad_id") = 0, py::arg("threads") = 2);
}
