"""Supervised embeddings: a candidate's score is the dot product of the embedded conversation and the embedded candidate."""
from .model import SupervisedEmbeddings

__all__ = ["SupervisedEmbeddings"]
