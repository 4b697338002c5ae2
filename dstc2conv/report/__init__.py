"""`dstc2conv report`: one self-contained HTML page comparing systems on a task-6 file."""
