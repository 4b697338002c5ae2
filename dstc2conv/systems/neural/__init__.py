"""What the neural systems (supervised embeddings, MemN2N) share: vocabulary and bags of
words, dialog histories, the training loop, what a model keeps."""
