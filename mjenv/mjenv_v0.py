"""Version 0 of the mjenv environment, under PettingZoo's versioned module name.

```python
from mjenv import mjenv_v0

env = mjenv_v0.parallel_env(rules="basic")   # the same objects as mjenv.parallel_env()
aec = mjenv_v0.env()
```

Names follow PettingZoo and gymnasium: the module ``mjenv_v0`` (as ``pettingzoo.classic.chess_v6``), the
environments' ``metadata["name"] == "mjenv_v0"``, and the gymnasium id ``"mjenv/SingleSeat-v0"`` of the
single-seat env (``mjenv.wrappers.SingleAgentEnv``). A change that alters what an agent observes, may
do or is rewarded for gets the next number (``mjenv_v1``, ``"mjenv/SingleSeat-v1"``) while the older
versions stay importable; ``mjenv.parallel_env()`` and ``mjenv.env()`` always give the newest.
``help(mjenv.env)`` is the full specification of the version that module holds.
"""

from __future__ import annotations

from mjenv._extras import import_or_hint

_env = import_or_hint("mjenv.env", "mjenv.mjenv_v0")
env, parallel_env, raw_env = _env.env, _env.parallel_env, _env.raw_env

__all__ = ["env", "parallel_env", "raw_env"]
