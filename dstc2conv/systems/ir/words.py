"""The words of the information-retrieval baselines: the whitespace-separated tokens of
the task-6 text, lowercased."""


def words(text: str) -> list[str]:
    return text.lower().split()
