"""The trainers' Adam (mjenv.baselines.optim) against torch.optim.Adam: the same weights bit for bit."""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest
import torch
from mjenv.baselines.optim import Adam
from mjenv.baselines.policy import build_net


def _grads(net, seed: int, skip_critic: bool = False) -> None:
    """Gradients of a loss of random inputs on every parameter (None on the critic's with skip_critic)."""
    g = torch.Generator().manual_seed(seed)
    obs = torch.rand(32, net.obs_size, generator=g) * 4
    mask = (torch.rand(32, net.num_actions, generator=g) < 0.3).to(torch.int8)
    mask[:, -1] = 1
    logits, values = net(obs, mask)
    loss = -torch.log_softmax(logits, 1).masked_fill(mask == 0, 0.0).sum() + values.square().sum()
    for p in net.parameters():
        p.grad = None
    loss.backward()
    if skip_critic:
        for p in net.critic.parameters():
            p.grad = None


def _same(a, b) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters()))


def test_adam_steps_and_state_dicts_are_torch_adams():
    torch.manual_seed(0)
    ours_net = build_net("basic", hidden=(64, 32))
    theirs_net = copy.deepcopy(ours_net)
    ours = Adam(ours_net.parameters(), lr=3e-4, eps=1e-5)
    theirs = torch.optim.Adam(theirs_net.parameters(), lr=3e-4, eps=1e-5)
    for k in range(6):
        for opt, net in ((ours, ours_net), (theirs, theirs_net)):
            opt.param_groups[0]["lr"] = 3e-4 * (1 - k / 6)  # annealed as the trainer does
            opt.zero_grad()
            _grads(net, seed=k, skip_critic=k == 2)  # a step without the critic's gradients: its count stays
            opt.step()
        assert _same(ours_net, theirs_net), f"step {k}"
    assert not _same(ours_net, build_net("basic", hidden=(64, 32)))  # the steps moved the weights
    mine, torchs = ours.state_dict(), theirs.state_dict()
    assert mine["param_groups"] == torchs["param_groups"]
    assert mine["state"].keys() == torchs["state"].keys()
    for i, s in torchs["state"].items():
        assert all(torch.equal(mine["state"][i][k], s[k]) and mine["state"][i][k].dtype == s[k].dtype for k in s)
    # each loads the other's state dict and goes on in step
    ours2, theirs2 = Adam(theirs_net.parameters(), lr=1.0), torch.optim.Adam(ours_net.parameters(), lr=1.0)
    ours2.load_state_dict(torchs)
    theirs2.load_state_dict(mine)
    for opt, net in ((ours2, theirs_net), (theirs2, ours_net)):
        opt.zero_grad()
        _grads(net, seed=10)
        opt.step()
    assert _same(ours_net, theirs_net)


def test_adam_rejects_what_it_does_not_run():
    net = build_net("basic", hidden=(8,))
    with pytest.raises(ValueError, match="at least one parameter"):
        Adam([])
    with pytest.raises(ValueError, match="betas"):
        Adam(net.parameters(), betas=(0.9, 1.0))
    decayed = torch.optim.Adam(net.parameters(), weight_decay=0.1).state_dict()
    with pytest.raises(ValueError, match="weight_decay"):
        Adam(net.parameters()).load_state_dict(decayed)
    with pytest.raises(ValueError, match="parameters"):
        Adam(list(net.parameters())[:2]).load_state_dict(decayed)


def test_training_imports_no_dynamo():
    code = ("import sys, torch\nfrom mjenv.baselines.optim import Adam\nfrom mjenv.baselines.policy import build_net\n"
            "net = build_net('basic', hidden=(8,))\nopt = Adam(net.parameters())\n"
            "sum(p.sum() for p in net.parameters()).backward()\nopt.step()\nprint('torch._dynamo' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
