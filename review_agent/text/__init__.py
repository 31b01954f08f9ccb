"""Text utilities: lines by number, literal tries, lazily compiled regexes."""
