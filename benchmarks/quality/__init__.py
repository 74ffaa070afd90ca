"""Quality benchmarks: relevance, agents vs baselines, fusion, dense retrieval, students."""
