"""What the terminal shows: progress and tables, traces and answers, text made safe to print."""
