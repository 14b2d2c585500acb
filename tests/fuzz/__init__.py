"""Fuzz suites for the input edges: shoe decoders, commands, settings, records, variant file."""
