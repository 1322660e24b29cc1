"""Training research kept out of the installed ``mjenv.baselines``: danger model, rollout improvement, selection."""
