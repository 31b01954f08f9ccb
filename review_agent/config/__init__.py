"""Configuration: files, layers, command-line options, range options."""
