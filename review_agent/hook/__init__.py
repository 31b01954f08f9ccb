"""The pre-commit hook's fast path and the reads it starts ahead of the review."""
