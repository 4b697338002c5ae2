"""What the learned systems share: vocabulary and bags of words, dialog histories, the training loop, the model folder."""
