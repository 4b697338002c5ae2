"""Scoring task-6 predictions."""
