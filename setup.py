"""Build hook for the optional C kernels and the package list (everything else is in pyproject.toml).

``mjenv.deficiency._kernel`` computes the observation's deficiency features in C. It is optional:
without a C compiler the install still succeeds and mjenv falls back to the numpy path (same values,
slower); ``mjenv.deficiency.kernel.available()`` says which one runs.

``mjenv.deficiency._fast`` is the default engine of a single ``deficiency()`` call (an exact table
method in C). It is optional too: without it the call runs ``hbba`` (same values, slower).
``mjenv.deficiency._bda`` is ``method="bda"``'s local type search in C (optional likewise: without
it the Python search gives the same types).
``_kernel.c`` and ``_fast.c`` include ``mjenv/deficiency/_minplus.h`` (their shared (k, p) vector join)
and ``_closed.h`` (seven pairs and thirteen orphans in closed form); in ``depends`` so a change
rebuilds both, and in the package data so an sdist carries them.
``mjenv.game._step`` is the compiled batch step (optional: without it the envs run the Python engine, same
values); a rule-set room with rules of its own in it has its hooks in ``mjenv/rulesets/<room>/_step_hooks.c``
(``mjenv.rulesets.<room>._step_hooks``, built beside it; ``mjenv/game/_step_room.h`` is their protocol).
``mjenv.baselines._flatmc`` is flat MC's compiled simulation (optional: without it
``mjenv.baselines.flatmc.simulate`` runs its numpy path, same wins); it and ``_fast.c``'s ``contains``
include ``mjenv/deficiency/_contains.h`` (the empty-KB completeness table).
``mjenv.rulesets.riichi._score`` is Riichi's scorer in C (``_score.h``, also included by the compiled
Riichi step; optional: without it ``scoring.score_hand`` runs its Python path, same results).
"""

from pathlib import Path

from setuptools import Extension, find_packages, setup

# every package under mjenv/ (a new rule-set room, mjenv/rulesets/<name>/, is found by itself), plus the
# top-level folders installed as mjenv.wrappers and mjenv.baselines (pyproject.toml's package-dir); the
# folders themselves are not installed as top-level packages (no `import wrappers` after install)
PACKAGES = find_packages(include=["mjenv", "mjenv.*"]) + ["mjenv.wrappers", "mjenv.baselines"]
# rule-set rooms with a part in the compiled step: mjenv/rulesets/<room>/_step_hooks.c (mjenv/game/_step_room.h)
ROOMS_WITH_STEP_HOOKS = sorted(p.parent.name for p in Path("mjenv/rulesets").glob("*/_step_hooks.c"))

setup(
    packages=PACKAGES,
    ext_modules=[
        Extension(
            "mjenv.deficiency._kernel",
            ["mjenv/deficiency/_kernel.c"],
            depends=["mjenv/deficiency/_minplus.h", "mjenv/deficiency/_closed.h", "mjenv/deficiency/_kernel_api.h"],
            extra_compile_args=["-O3", "-std=c99"],
            optional=True,
        ),
        Extension(
            "mjenv.deficiency._fast",
            ["mjenv/deficiency/_fast.c"],
            depends=["mjenv/deficiency/_minplus.h", "mjenv/deficiency/_contains.h", "mjenv/deficiency/_closed.h"],
            extra_compile_args=["-O3", "-std=c99"],
            optional=True,
        ),
        Extension(
            "mjenv.deficiency._bda",
            ["mjenv/deficiency/_bda.c"],
            extra_compile_args=["-O3", "-std=c99"],
            optional=True,
        ),
        Extension(
            "mjenv.game._step",
            ["mjenv/game/_step.c"],
            depends=["mjenv/deficiency/_kernel_api.h", "mjenv/game/_step_room.h", "mjenv/game/_numpy_random.h",
                     "mjenv/game/_pool.h", "mjenv/game/_slots.h"],
            extra_compile_args=["-O3", "-std=c99", "-pthread"],
            extra_link_args=["-pthread"],
            optional=True,
        ),
        *(
            Extension(
                f"mjenv.rulesets.{room}._step_hooks",
                [f"mjenv/rulesets/{room}/_step_hooks.c"],
                depends=["mjenv/game/_step_room.h"],
                extra_compile_args=["-O3", "-std=c99"],
                optional=True,
            )
            for room in ROOMS_WITH_STEP_HOOKS
        ),
        Extension(
            "mjenv.rulesets.riichi._score",
            ["mjenv/rulesets/riichi/_score.c"],
            depends=["mjenv/rulesets/riichi/_score.h"],
            extra_compile_args=["-O3", "-std=c99"],
            optional=True,
        ),
        Extension(
            "mjenv.rulesets.riichi._engine",
            ["mjenv/rulesets/riichi/_engine.c"],
            depends=["mjenv/rulesets/riichi/_engine.h", "mjenv/rulesets/riichi/_shape.h",
                     "mjenv/rulesets/riichi/_score.h", "mjenv/deficiency/_kernel_api.h", "mjenv/game/_pool.h",
                     "mjenv/game/_slots.h"],
            extra_compile_args=["-O3", "-std=c99", "-pthread"],
            extra_link_args=["-pthread"],
            optional=True,
        ),
        Extension(
            "mjenv.baselines._flatmc",
            ["baselines/_flatmc.c"],
            depends=["mjenv/deficiency/_contains.h"],
            extra_compile_args=["-O3", "-std=c99"],
            optional=True,
        ),
    ]
)
