"""Question sets: loading JSONL and STaRK CSV, question records, splits and seeded samples."""
