"""Hybrid Code Networks over the rules: the rules' tracking and action mask, a recurrent
network over the dialog's bot turns and the chooser's linear scores (``hcn.system``)."""
