// Fused gather of per-token log-probabilities summed over each row (the DPO sequence log-prob), for CPU.
// logp: [N, T, V] float32 log-softmax output; target: [N, T] int64 token ids, -100 where the token is not scored.
#include <torch/extension.h>
#include <cstdint>

torch::Tensor gather_logp_fwd(torch::Tensor logp, torch::Tensor target) {
  auto lp = logp.contiguous();
  auto tg = target.contiguous();
  const int64_t N = lp.size(0), T = lp.size(1), V = lp.size(2);
  auto out = torch::zeros({N}, lp.options());
  const float* p = lp.data_ptr<float>();
  const int64_t* t = tg.data_ptr<int64_t>();
  float* o = out.data_ptr<float>();
  for (int64_t n = 0; n < N; ++n) {
    float acc = 0.f;
    for (int64_t s = 0; s < T; ++s) {
      const uint32_t tok = static_cast<uint32_t>(t[n * T + s]);  // token ids fit in 32 bits
      acc += p[(n * T + s) * V + tok];
    }
    o[n] = acc;
  }
  return out;
}

struct GatherLogp : public torch::autograd::Function<GatherLogp> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor logp, torch::Tensor target) {
    ctx->save_for_backward({target});
    ctx->saved_data["shape"] = logp.sizes().vec();
    return gather_logp_fwd(logp, target);
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad) {
    auto target = ctx->get_saved_variables()[0];
    auto shape = ctx->saved_data["shape"].toIntVector();
    auto g = torch::zeros(shape, grad[0].options());
    auto valid = target.ge(0);
    auto idx = target.clamp_min(0).unsqueeze(-1);
    g.scatter_(2, idx, valid.unsqueeze(-1).to(g.dtype()) * grad[0].view({-1, 1, 1}));
    return {g, torch::Tensor()};
  }
};

torch::Tensor gather_logp(torch::Tensor logp, torch::Tensor target) { return GatherLogp::apply(logp, target); }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("gather_logp", &gather_logp, "summed log-prob gather (CPU)"); }
