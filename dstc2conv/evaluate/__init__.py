"""Evaluation: compare a built file with a published one, and score predictions against a task-6 file."""
