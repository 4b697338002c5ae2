"""Evaluation: how closely task-6 files, and predictions, match the published ones."""
