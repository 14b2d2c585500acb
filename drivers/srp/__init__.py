"""SRP/1, the checksummed shoe reader protocol (spec/shoe-protocol.md). Pure."""
