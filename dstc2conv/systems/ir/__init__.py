"""The paper's information-retrieval baselines: TF-IDF match and nearest neighbour."""
