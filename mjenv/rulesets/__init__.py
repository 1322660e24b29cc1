"""Rule-set rooms: one subpackage per rule set (``mjenv.rulesets.<name>``)."""
