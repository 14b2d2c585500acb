"""The runtime: the only place where time, I/O and ordering live (journal, shoe link, service)."""
