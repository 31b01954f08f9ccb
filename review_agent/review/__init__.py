"""The review: pipeline, context staging, findings and their filters."""
