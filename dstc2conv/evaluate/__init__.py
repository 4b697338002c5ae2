"""Evaluation: compare a built file with a published one, and score predictions against a task-6 file."""

# When a prediction is right (``metrics.correct``): here, so that the command line's
# parsers name them without loading the metrics.
MATCHES = ("strip", "lower", "template")
