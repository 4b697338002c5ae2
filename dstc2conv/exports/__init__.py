"""Exports: task-6 data in the formats other toolkits load."""
