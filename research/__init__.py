"""One-off studies and paper reruns, not installed; run from the repository root (``python -m research.headroom``)."""
