"""table-controller: the software beside a live baccarat table."""

__version__ = "0.1.0"
