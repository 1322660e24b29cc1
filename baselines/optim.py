"""Adam as ``torch.optim.Adam`` computes it, without ``torch.optim``'s start-up cost.

Every ``torch.optim`` optimiser imports ``torch._dynamo`` on its construction and on each ``step()``
(about 0.9 CPU-second once per process, as much as importing torch itself): a fixed cost for every
training run, a large share of a short one. :class:`Adam` is the algorithm ``torch.optim.Adam`` runs by
default on CPU tensors (its ``_single_tensor_adam`` without weight decay, amsgrad or maximize), the
same operations in the same order, so the same weights bit for bit (a test compares both, step by
step), with its state dict in ``torch.optim.Adam``'s format (either loads the other's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import torch


class Adam:
    """Adam (Kingma and Ba 2015) over one group of parameters, as ``torch.optim.Adam(params, lr, betas, eps)``.

    Only the defaults of ``torch.optim.Adam`` otherwise (no weight decay, amsgrad off, minimising),
    which is what the trainers use. Parameters whose gradient is None are skipped by :meth:`step`
    (their step counts stay), as in ``torch.optim``.

    Args:
        params: the tensors to optimise (leaf tensors with ``requires_grad``).
        lr: learning rate (``param_groups[0]["lr"]`` may be changed between steps).
        betas: the moving averages' coefficients.
        eps: added to the denominator.

    Attributes:
        param_groups: one dict, ``params`` and the hyperparameters under ``torch.optim.Adam``'s keys.
        state: per parameter ``{"step": float32 scalar tensor, "exp_avg", "exp_avg_sq"}`` once it has
            been stepped.
    """

    def __init__(self, params: Iterable[torch.Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8):
        params = list(params)
        if not params:
            raise ValueError("Adam needs at least one parameter")
        if lr < 0 or eps < 0 or not all(0.0 <= b < 1.0 for b in betas):
            raise ValueError(f"need lr >= 0, eps >= 0 and betas in [0, 1); got lr={lr}, betas={betas}, eps={eps}")
        self.param_groups: list[dict[str, Any]] = [{
            "params": params, "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": 0, "amsgrad": False,
            "maximize": False, "foreach": None, "capturable": False, "differentiable": False, "fused": None,
            "decoupled_weight_decay": False,
        }]
        self.state: dict[torch.Tensor, dict[str, torch.Tensor]] = {}

    def zero_grad(self) -> None:
        """Set every gradient to None (``torch.optim``'s default, ``set_to_none=True``)."""
        for p in self.param_groups[0]["params"]:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        """One Adam step of every parameter that has a gradient."""
        group = self.param_groups[0]
        beta1, beta2 = group["betas"]
        lr, eps = group["lr"], group["eps"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state.get(p)
            if state is None:
                state = self.state[p] = {"step": torch.tensor(0.0, dtype=torch.float32),
                                         "exp_avg": torch.zeros_like(p, memory_format=torch.preserve_format),
                                         "exp_avg_sq": torch.zeros_like(p, memory_format=torch.preserve_format)}
            grad, exp_avg, exp_avg_sq, step_t = p.grad, state["exp_avg"], state["exp_avg_sq"], state["step"]
            step_t += 1
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            step = step_t.item()
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            step_size = lr / bias_correction1
            denom = (exp_avg_sq.sqrt() / bias_correction2**0.5).add_(eps)
            p.addcdiv_(exp_avg, denom, value=-step_size)

    def state_dict(self) -> dict[str, Any]:
        """``torch.optim.Adam.state_dict()``'s format: parameters by their index in the group."""
        params = self.param_groups[0]["params"]
        group = {k: v for k, v in self.param_groups[0].items() if k != "params"}
        group["params"] = list(range(len(params)))
        return {"state": {i: dict(self.state[p]) for i, p in enumerate(params) if p in self.state},
                "param_groups": [group]}

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Load :meth:`state_dict` or ``torch.optim.Adam.state_dict()`` of the same parameters.

        Raises:
            ValueError: another number of groups or parameters, or settings this class does not run.
        """
        groups = state_dict.get("param_groups", [])
        params = self.param_groups[0]["params"]
        if len(groups) != 1 or len(groups[0]["params"]) != len(params):
            raise ValueError(f"the state dict has {len(groups)} groups of "
                             f"{[len(g['params']) for g in groups]} parameters; this optimiser one of {len(params)}")
        group = groups[0]
        unsupported = {k: group.get(k) for k in ("weight_decay", "amsgrad", "maximize") if group.get(k)}
        if unsupported:
            raise ValueError(f"this Adam runs without weight decay, amsgrad and maximize; the state dict has "
                             f"{unsupported}")
        self.state = {}
        for index, p in zip(group["params"], params):
            saved = state_dict["state"].get(index)
            if saved is not None:
                self.state[p] = {"step": saved["step"].detach().clone().to(torch.float32).cpu(),
                                 "exp_avg": saved["exp_avg"].detach().clone().to(p),
                                 "exp_avg_sq": saved["exp_avg_sq"].detach().clone().to(p)}
        self.param_groups[0].update({k: (tuple(v) if k == "betas" else v) for k, v in group.items() if k != "params"})
