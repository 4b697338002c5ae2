"""The systems that answer a task-6 dialog turn by turn: the rules, the IR baselines, the learned models."""
