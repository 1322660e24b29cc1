"""The torch device path of ``dp`` gives the numpy results (on CPU here; CUDA shares the code)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from mjenv.deficiency import INCOMPLETABLE, deficiency, dp
from mjenv.deficiency.reference import reference_one

from .test_dp import _batch

torch = pytest.importorskip("torch")
from mjenv.deficiency import _dp_torch  # noqa: E402  (needs torch, guarded above)


@pytest.mark.parametrize("padded", [False, True], ids=["loop(cpu)", "padded(cuda)"])
@pytest.mark.parametrize("honours", [False, True])
def test_torch_cpu_equals_numpy(honours, padded, monkeypatch):
    # the padded one-gather combination is what CUDA runs: check it here on CPU too
    monkeypatch.setitem(_dp_torch._PADDED, "cpu", padded)
    rng = np.random.default_rng(30)
    hands, kbs, needed = _batch(rng, 1500, honours=honours)
    want = dp.deficiency_batch(hands, kbs, needed)
    got = dp.deficiency_batch(hands, kbs, needed, device="cpu")
    assert got.dtype == np.int32 and (got == want).all()
    assert (want == INCOMPLETABLE).any() and (want < INCOMPLETABLE).any()


def test_torch_cpu_equals_reference_with_five_melds_and_small_hands():
    rng = np.random.default_rng(31)
    hands, kbs, needed = _batch(rng, 80, melds=5, honours=False, kb_modes=("random", "tiny", "full"))
    expected = np.array([reference_one(h, k, int(m)) for h, k, m in zip(hands, kbs, needed)])
    assert (dp.deficiency_batch(hands, kbs, needed, device="cpu") == expected).all()
    h = np.zeros((2, 27), np.int8)
    h[0, 4] = 2
    h[1, 9] = 1
    assert dp.deficiency_batch(h, 4 - h, np.zeros(2, np.int64), device="cpu").tolist() == [0, 1]


def test_public_api_forwards_device_and_chunks(monkeypatch):
    rng = np.random.default_rng(32)
    hands, kbs, needed = _batch(rng, 300, honours=True, kb_modes=("random", "full"))
    monkeypatch.setitem(_dp_torch._CHUNK, "cpu", 64)  # several chunks, each mixing both table paths
    got = deficiency(hands, kbs, method="dp", exposed_melds=4 - needed, device="cpu")
    assert (got == dp.deficiency_batch(hands, kbs, needed)).all()
    assert deficiency("123m456m789m1p2p3p5s", method="dp", device="cpu") == 1
    assert deficiency("123m456m789m1p2p3p5s", method="dp", device=torch.device("cpu")) == 1


def test_tensor_entry_point_stays_on_device():
    rng = np.random.default_rng(33)
    hands, kbs, needed = _batch(rng, 50, honours=False)
    out = _dp_torch.deficiency_tensor(torch.from_numpy(hands), torch.from_numpy(kbs), torch.from_numpy(needed))
    assert isinstance(out, torch.Tensor) and out.dtype == torch.int32
    assert (out.numpy() == dp.deficiency_batch(hands, kbs, needed)).all()


@pytest.mark.parametrize("device", ["gpu", "tpu", "meta", 3, "cuda:x"])
def test_unknown_device_is_a_value_error(device):
    with pytest.raises(ValueError, match="device"):
        deficiency("123m456m789m1p2p3p5s", method="dp", device=device)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message when CUDA is missing")
def test_cuda_without_gpu_is_a_value_error():
    with pytest.raises(ValueError, match="CUDA is not available"):
        deficiency("123m456m789m1p2p3p5s", method="dp", device="cuda")


def test_missing_torch_is_a_value_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` raise ImportError
    with pytest.raises(ValueError, match="needs torch"):
        dp.deficiency_batch(
            np.zeros((1, 27), np.int8), np.full((1, 27), 4, np.int8), np.zeros(1, np.int64), device="cpu"
        )


def test_numpy_path_never_imports_torch():
    code = (
        "import sys\n"
        "from mjenv.deficiency import deficiency\n"
        "assert deficiency('123m456m789m1p2p3p5s', method='dp') == 1\n"
        "assert 'torch' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
