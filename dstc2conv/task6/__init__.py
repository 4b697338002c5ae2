"""The task-6 format: read and write its files, its result facts, and the turn view of a dialog."""
