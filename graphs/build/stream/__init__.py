"""The bounded-memory snapshot build: staging, SQL validation and streamed snapshot files."""
