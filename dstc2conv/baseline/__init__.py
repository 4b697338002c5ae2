"""The rule baseline: prioritized rules and response patterns declared in YAML."""
