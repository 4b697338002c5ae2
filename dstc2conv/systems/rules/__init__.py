"""The rule baseline: prioritized rules and response patterns in YAML, a slot-filling state, a tuner."""
